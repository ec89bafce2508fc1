#include "grader/core/source_rules.hpp"

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace grader {

namespace {

std::string strip(const std::string& source, bool keep_literals) {
  enum class State { code, line_comment, block_comment, string, character };
  State state = State::code;
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    const char next = i + 1 < source.size() ? source[i + 1] : '\0';
    switch (state) {
      case State::code:
        if (c == '/' && next == '/') {
          state = State::line_comment;
          ++i;
        } else if (c == '/' && next == '*') {
          state = State::block_comment;
          out += ' ';  // a comment separates tokens
          ++i;
        } else {
          if (c == '"') state = State::string;
          if (c == '\'') state = State::character;
          out += c;
        }
        break;
      case State::line_comment:
        if (c == '\n') {
          state = State::code;
          out += c;
        }
        break;
      case State::block_comment:
        if (c == '*' && next == '/') {
          state = State::code;
          ++i;
        } else if (c == '\n') {
          out += c;
        }
        break;
      case State::string:
      case State::character:
        if (c == '\\' && next != '\0') {
          if (keep_literals) {
            out += c;
            out += next;
          }
          ++i;  // an escaped character, the quote included
        } else if ((c == '"' && state == State::string) || (c == '\'' && state == State::character)) {
          out += c;
          state = State::code;
        } else if (c == '\n') {
          out += c;  // an unterminated literal ends at the line, as for the compiler
          state = State::code;
        } else if (keep_literals) {
          out += c;
        }
        break;
    }
  }
  return out;
}

}  // namespace

std::string strip_comments_and_strings(const std::string& source) { return strip(source, false); }

std::string strip_comments(const std::string& source) { return strip(source, true); }

std::vector<std::string> forbidden_library_uses(const std::string& source) {
  // An include is matched on the raw line (its <path> is not a string literal, and "path" is
  // blanked by the stripping), but only where the stripped line still holds the #include.
  static const std::regex include_line(R"(^\s*#\s*include\s*[<"]\s*((cub|thrust)/[^>"]*)[>"])");
  static const std::regex library_name(R"((^|[^A-Za-z0-9_])((cub|thrust)\s*::\s*[A-Za-z_][A-Za-z0-9_]*))");
  std::vector<std::string> uses;
  std::istringstream raw_lines(source), code_lines(strip_comments_and_strings(source));
  std::string raw, code;
  for (int number = 1; std::getline(code_lines, code); ++number) {
    if (!std::getline(raw_lines, raw)) raw.clear();
    std::smatch match;
    if (code.find("include") != std::string::npos && std::regex_search(raw, match, include_line)) {
      uses.push_back("line " + std::to_string(number) + ": #include <" + match[1].str() + ">");
    }
    for (auto it = std::sregex_iterator(code.begin(), code.end(), library_name);
         it != std::sregex_iterator(); ++it) {
      uses.push_back("line " + std::to_string(number) + ": " + (*it)[2].str());
    }
  }
  return uses;
}

std::string splice_lines(const std::string& source) {
  std::string out;
  out.reserve(source.size());
  int pending = 0;  // line breaks removed from the logical line being copied
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\\' && i + 1 < source.size() && source[i + 1] == '\n') {
      ++i;
      ++pending;
    } else if (source[i] == '\\' && i + 2 < source.size() && source[i + 1] == '\r' &&
               source[i + 2] == '\n') {
      i += 2;
      ++pending;
    } else {
      out += source[i];
      if (source[i] == '\n') {
        out.append(pending, '\n');
        pending = 0;
      }
    }
  }
  out.append(pending, '\n');
  return out;
}

std::string join_pasted_tokens(const std::string& code) {
  static const std::regex pasting(R"([ \t]*(##|%:%:)[ \t]*)");
  return std::regex_replace(code, pasting, "");
}

namespace {

// A whole identifier out of `names` (a regex alternation), not part of a longer one.
std::regex identifier(const std::string& names) {
  return std::regex("(^|[^A-Za-z0-9_])(" + names + ")(?![A-Za-z0-9_])");
}

struct IdentifierRule {
  const char* rule;
  std::regex names;
};

const std::vector<IdentifierRule>& identifier_rules() {
  static const std::vector<IdentifierRule> rules = {
      {"l2-persistence",
       identifier("[A-Za-z0-9_]*(?:[Aa]ccessPolicyWindow|ACCESS_POLICY_WINDOW|PersistingL2|"
                  "PERSISTING_L2|persistingL2|AccessPropertyPersisting|ACCESS_PROPERTY_PERSISTING)"
                  "[A-Za-z0-9_]*|hitProp|missProp|hitRatio")},
      {"environment", identifier("getenv|secure_getenv|environ|__environ|_environ")},
      {"loaded-libraries",
       identifier("dlopen|dlmopen|dlsym|dlvsym|dladdr1?|dlinfo|dl_iterate_phdr|_?r_debug|link_map|"
                  "cuGetProcAddress[A-Za-z0-9_]*|cudaGetDriverEntryPoint[A-Za-z0-9_]*")},
      {"other-processes",
       identifier("kill|killpg|tgkill|tkill|sigqueue|pidfd_send_signal|pidfd_open|pidfd_getfd|"
                  "ptrace|process_vm_readv|process_vm_writev|(?:SYS|__NR)_(?:kill|tgkill|tkill|"
                  "rt_sigqueueinfo|rt_tgsigqueueinfo|pidfd_send_signal|pidfd_open|ptrace|"
                  "process_vm_readv|process_vm_writev)")},
      {"backend-test",
       identifier("CUDA_CPU_BACKEND[A-Za-z0-9_]*|cpu_backend|__CUDA[A-Za-z0-9_]*|"
                  "__NVCC[A-Za-z0-9_]*|CUDART_VERSION|CUDA_VERSION|__has_include")},
      {"descriptors",
       identifier("dup|dup2|dup3|freopen|freopen64|fdopen|pipe|pipe2|memfd_create|fmemopen|"
                  "open_memstream|open_wmemstream|setvbuf|setbuf|setbuffer|setlinebuf|splice|tee|"
                  "vmsplice|socketpair|mkfifo|mkfifoat|close_range|posix_spawn_file_actions_add(?:dup2|open)|"
                  "(?:SYS|__NR)_(?:dup|dup2|dup3|pipe|pipe2|memfd_create|splice|tee|vmsplice|close_range)")},
      {"device-settings",
       identifier("cudaStreamSetAttribute|cuStreamSetAttribute|cudaLaunchKernelEx|"
                  "cuLaunchKernelEx|cudaGraphKernelNodeSetAttribute|cuGraphKernelNodeSetAttribute|"
                  "cudaStreamAttrValue|cudaLaunchAttribute[A-Za-z0-9_]*|CUlaunchAttribute[A-Za-z0-9_]*|"
                  "CUstreamAttrValue[A-Za-z0-9_]*")},
  };
  return rules;
}

// Limits a lab may set without a second look; any other (or one given by number) is reported.
bool harmless_limit(const std::string& name) {
  static const std::regex harmless(
      "(?:::)?(?:cudaLimit(?:StackSize|PrintfFifoSize|MallocHeapSize|DevRuntimeSyncDepth|"
      "DevRuntimePendingLaunchCount|MaxL2FetchGranularity)|CU_LIMIT_(?:STACK_SIZE|PRINTF_FIFO_SIZE|"
      "MALLOC_HEAP_SIZE|DEV_RUNTIME_SYNC_DEPTH|DEV_RUNTIME_PENDING_LAUNCH_COUNT|"
      "MAX_L2_FETCH_GRANULARITY))");
  return std::regex_match(name, harmless);
}

}  // namespace

std::vector<ProbeUse> probe_uses(const std::string& source) {
  // Names the tool, its library or the variables it sets, anywhere in code or a string (not only
  // whole words: NV_SANITIZER_..., libsanitizer-collection.so).
  // The whole word around it is what is reported: NV_SANITIZER_INJECTION_PORT_BASE once.
  static const std::regex sanitizer(
      "[A-Za-z0-9_.-]*(?:sanitizer|racecheck|synccheck|memcheck|initcheck|treelauncher|injection|"
      "ld_preload|ld_audit)[A-Za-z0-9_.-]*",
      std::regex::ECMAScript | std::regex::icase);
  static const std::regex system_path(R"(/(proc|sys)(?=[/"]|$))");
  static const std::regex adjacent_literals(R"("[ \t]*(?:u8|u|U|L)?")");
  // A standard stream given another FILE, or its descriptor closed for the next open to take.
  static const std::regex stream_moved(
      R"((^|[^A-Za-z0-9_.>])(std\s*::\s*)?((stdout|stderr|stdin)\s*=(?!=)|close\s*\(\s*(1|2|STDOUT_FILENO|STDERR_FILENO)\s*\)))");
  static const std::regex set_limit(R"((cudaDeviceSetLimit|cuCtxSetLimit)\s*\(\s*((?:::)?[A-Za-z_][A-Za-z0-9_:]*)?)");
  const std::string spliced = splice_lines(source);
  std::vector<ProbeUse> uses;
  auto add = [&uses](int line, const char* rule, const std::string& what) {
    for (const ProbeUse& use : uses) {
      if (use.line == line && use.rule == rule && use.what == what) return;
    }
    uses.push_back({line, rule, what});
  };
  std::istringstream names_lines(join_pasted_tokens(strip_comments_and_strings(spliced)));
  std::istringstream text_lines(strip_comments(spliced));
  std::string names, text;
  for (int number = 1; std::getline(names_lines, names); ++number) {
    if (!std::getline(text_lines, text)) text.clear();
    // "compute-" "sanitizer" is one string to the compiler; pasted names are one name.
    const std::string literals = std::regex_replace(text, adjacent_literals, "");
    for (const std::string* where : {&literals, static_cast<const std::string*>(&names)}) {
      for (auto it = std::sregex_iterator(where->begin(), where->end(), sanitizer);
           it != std::sregex_iterator(); ++it) {
        add(number, "sanitizer", it->str());
      }
    }
    for (auto it = std::sregex_iterator(literals.begin(), literals.end(), system_path);
         it != std::sregex_iterator(); ++it) {
      add(number, "system-paths", it->str());
    }
    bool l2 = false;
    for (const IdentifierRule& rule : identifier_rules()) {
      if (l2 && std::string(rule.rule) == "device-settings") continue;  // said once, as l2
      for (auto it = std::sregex_iterator(names.begin(), names.end(), rule.names);
           it != std::sregex_iterator(); ++it) {
        add(number, rule.rule, (*it)[2].str());
        l2 = l2 || std::string(rule.rule) == "l2-persistence";
      }
    }
    for (auto it = std::sregex_iterator(names.begin(), names.end(), stream_moved);
         it != std::sregex_iterator(); ++it) {
      add(number, "descriptors", std::regex_replace((*it)[3].str(), std::regex(R"(\s+)"), ""));
    }
    for (auto it = std::sregex_iterator(names.begin(), names.end(), set_limit);
         it != std::sregex_iterator(); ++it) {
      const std::string limit = (*it)[2].str();
      if (!l2 && !harmless_limit(limit)) {
        add(number, "device-settings", (*it)[1].str() + "(" + (limit.empty() ? "..." : limit) + ")");
      }
    }
  }
  return uses;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace grader
