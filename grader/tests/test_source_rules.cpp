#include <gtest/gtest.h>

#include "grader/core/source_rules.hpp"

namespace {

using grader::forbidden_library_uses;

TEST(StripCommentsAndStrings, RemovesCommentsAndKeepsLineNumbers) {
  EXPECT_EQ(grader::strip_comments_and_strings("a // b\nc /* d\ne */ f\n"), "a \nc  \n f\n");
}

TEST(StripCommentsAndStrings, BlanksStringAndCharacterLiterals) {
  EXPECT_EQ(grader::strip_comments_and_strings("s = \"cub::x \\\" //\"; c = '\\'';"), "s = \"\"; c = '';");
}

TEST(ForbiddenLibraryUses, FindsCubAndThrustCallsWithTheirLines) {
  const auto uses = forbidden_library_uses("int x;\ncub::DeviceScan::InclusiveSum(a);\n"
                                           "::thrust::inclusive_scan(b);\n");
  ASSERT_EQ(uses.size(), 2u);
  EXPECT_EQ(uses[0], "line 2: cub::DeviceScan");
  EXPECT_EQ(uses[1], "line 3: thrust::inclusive_scan");
}

TEST(ForbiddenLibraryUses, FindsIncludesOfEitherLibrary) {
  const auto uses = forbidden_library_uses("#include <cub/cub.cuh>\n#  include \"thrust/scan.h\"\n");
  ASSERT_EQ(uses.size(), 2u);
  EXPECT_EQ(uses[0], "line 1: #include <cub/cub.cuh>");
  EXPECT_EQ(uses[1], "line 2: #include <thrust/scan.h>");
}

TEST(ForbiddenLibraryUses, IgnoresCommentsStringsAndOtherNamespaces) {
  EXPECT_TRUE(forbidden_library_uses("// cub::DeviceScan would be faster\n"
                                     "/* #include <cub/cub.cuh>\n thrust::sort */\n"
                                     "const char* s = \"thrust::\";\n"
                                     "my_cub::scan(); cuda::std::min(1, 2); int cub = 1;\n")
                  .empty());
}

// "rule what" of each probe use on `line`, in order.
std::vector<std::string> probes(const std::string& source, int line = 0) {
  std::vector<std::string> found;
  for (const grader::ProbeUse& use : grader::probe_uses(source)) {
    if (line == 0 || use.line == line) found.push_back(use.rule + " " + use.what);
  }
  return found;
}

using Found = std::vector<std::string>;

TEST(StripComments, KeepsLiteralsAndDropsComments) {
  EXPECT_EQ(grader::strip_comments("s = \"a // b\\\"\"; // c\nt = 'x'; /* d */"),
            "s = \"a // b\\\"\"; \nt = 'x';  ");
}

TEST(SpliceLines, JoinsContinuedLinesAndKeepsTheNextLinesNumbers) {
  EXPECT_EQ(grader::splice_lines("get\\\nenv(x);\ny\n"), "getenv(x);\n\ny\n");
  EXPECT_EQ(grader::splice_lines("a\\\r\nb"), "ab\n");
}

TEST(JoinPastedTokens, JoinsBothSpellingsOfThePasteOperator) {
  EXPECT_EQ(grader::join_pasted_tokens("#define G get ## env\n#define H dl%:%:sym"),
            "#define G getenv\n#define H dlsym");
}

TEST(ProbeUses, FindsTheSanitizerInStringsNamesAndItsVariables) {
  EXPECT_EQ(probes("const char* v = getenv(\"CUDA_INJECTION64_PATH\");\n", 1),
            (Found{"sanitizer CUDA_INJECTION64_PATH", "environment getenv"}));
  EXPECT_EQ(probes("if (strstr(line, \"libsanitizer-collection\")) {}\n"),
            (Found{"sanitizer libsanitizer-collection"}));
  EXPECT_EQ(probes("f(\"LD_PRE\" \"LOAD\"); g(\"compute-\"  \"sanitizer\");"),
            (Found{"sanitizer LD_PRELOAD", "sanitizer compute-sanitizer"}));
  // A name made by stringizing is an identifier in the source.
  EXPECT_EQ(probes("#define S(x) #x\nconst char* t = S(race##check);\n", 2),
            (Found{"sanitizer racecheck"}));
}

TEST(ProbeUses, IgnoresComments) {
  EXPECT_TRUE(probes("// checked with compute-sanitizer --tool racecheck; getenv, /proc/self\n"
                     "/* kill(pid, 9); cudaLimitPersistingL2CacheSize */ int x = 1;\n")
                  .empty());
}

TEST(ProbeUses, FindsNamesBuiltByPastingOrSplicing) {
  EXPECT_EQ(probes("#define G get##env\nG(\"HOME\");\n"), (Found{"environment getenv"}));
  EXPECT_EQ(probes("int a;\nauto f = &dl_iterate\\\n_phdr;\nint b;\nkill(1, 9);\n"),
            (Found{"loaded-libraries dl_iterate_phdr", "other-processes kill"}));
  EXPECT_EQ(grader::probe_uses("int a;\nauto f = &dl_iterate\\\n_phdr;\nint b;\nkill(1, 9);\n")[1].line, 5);
}

TEST(ProbeUses, FindsEachRule) {
  EXPECT_EQ(probes("extern char** environ; x = secure_getenv(n);"),
            (Found{"environment environ", "environment secure_getenv"}));
  EXPECT_EQ(probes("FILE* f = fopen(\"/proc/self/maps\", \"r\"); g(\"/sys\");"),
            (Found{"system-paths /proc", "system-paths /sys"}));
  EXPECT_EQ(probes("dlsym(RTLD_DEFAULT, n); dladdr(p, &i); cuGetProcAddress_v2(n, &f, 0, 0);"),
            (Found{"loaded-libraries dlsym", "loaded-libraries dladdr", "loaded-libraries cuGetProcAddress_v2"}));
  EXPECT_EQ(probes("tgkill(a, b, 9); sigqueue(p, s, v); pidfd_send_signal(f, 9, 0, 0); "
                   "ptrace(PTRACE_ATTACH, p); syscall(SYS_kill, p, 9);"),
            (Found{"other-processes tgkill", "other-processes sigqueue",
                   "other-processes pidfd_send_signal", "other-processes ptrace",
                   "other-processes SYS_kill"}));
  EXPECT_EQ(probes("#ifdef CUDA_CPU_BACKEND\n#elif !defined(__CUDA_ARCH__)\n#endif"),
            (Found{"backend-test CUDA_CPU_BACKEND", "backend-test __CUDA_ARCH__"}));
}

TEST(ProbeUses, FindsDescriptorTricks) {
  // Issue 51, attack 4: standard output moved into a file the host reads back (::dup2 went unseen).
  EXPECT_EQ(probes("::dup2(fd, 1); std::freopen(p, \"w\", stdout); setvbuf(stdout, b, _IOFBF, n);\n"),
            (Found{"descriptors dup2", "descriptors freopen", "descriptors setvbuf"}));
  EXPECT_EQ(probes("int p[2]; pipe(p); fd = memfd_create(\"x\", 0); f = fmemopen(b, n, \"w\");\n"),
            (Found{"descriptors pipe", "descriptors memfd_create", "descriptors fmemopen"}));
  EXPECT_EQ(probes("stdout = f; close(1); ::close( STDOUT_FILENO ); syscall(SYS_dup3, a, 1, 0);\n"),
            (Found{"descriptors SYS_dup3", "descriptors stdout=", "descriptors close(1)",
                   "descriptors close(STDOUT_FILENO)"}));
  EXPECT_EQ(probes("#define D du##p2\nD(a, 1);\n"), (Found{"descriptors dup2"}));
  EXPECT_TRUE(probes("if (stdout == f) {} x.stdout = 1; fflush(stdout); close(fd); int dupe;\n").empty());
}

TEST(ProbeUses, FindsThePersistingL2Api) {
  EXPECT_EQ(probes("cudaStreamAttrValue a; a.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;\n"
                   "cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &a);\n"
                   "cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, n); cudaCtxResetPersistingL2Cache();\n"
                   "cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, n);\n"),
            (Found{"l2-persistence accessPolicyWindow", "l2-persistence hitProp",
                   "l2-persistence cudaAccessPropertyPersisting",
                   "l2-persistence cudaStreamAttributeAccessPolicyWindow",
                   "l2-persistence cudaLimitPersistingL2CacheSize",
                   "l2-persistence cudaCtxResetPersistingL2Cache",
                   "l2-persistence CU_LIMIT_PERSISTING_L2_CACHE_SIZE"}));
}

TEST(ProbeUses, ReportsLimitsAndAttributesSetWithoutAHarmlessName) {
  EXPECT_EQ(probes("cudaDeviceSetLimit(static_cast<cudaLimit>(6), n);\n"
                   "cudaDeviceSetLimit(cudaLimitStackSize, 4096);\n"
                   "cudaStreamSetAttribute(s, static_cast<cudaStreamAttrID>(1), &v);\n"),
            (Found{"device-settings cudaDeviceSetLimit(static_cast)",
                   "device-settings cudaStreamSetAttribute"}));
}

TEST(ProbeUses, LeavesAnOrdinaryKernelFileAlone) {
  EXPECT_TRUE(probes("#include \"lab01_global_atomics.cuh\"\n"
                     "__global__ void k(const int* s, int n, int* bins) {\n"
                     "  __shared__ int killed[4]; int environment = 0; const char* msg = \"n/a\";\n"
                     "  for (int i = threadIdx.x; i < n; i += blockDim.x) atomicAdd(&bins[s[i]], 1);\n"
                     "  __syncthreads(); int x = a / sys_count; (void)x; (void)environment;\n}\n")
                  .empty());
}

TEST(ReadTextFile, NamesTheFileItCannotRead) {
  EXPECT_THROW(
      {
        try {
          grader::read_text_file("/no/such/file.cu");
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("/no/such/file.cu"), std::string::npos);
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
