// Lab 00 grader: runs the student's whole program as a separate process on the standard file, on
// generated files of other sizes and on bad files, and compares its output and exit status with
// what data/histogram.py would print; reads its source for the calls the lab asks for.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/samples_file.hpp"
#include "grader/core/source_rules.hpp"
#include "grader/core/student_code.hpp"
#include "grader/remote/program_run.hpp"

namespace {

constexpr int kNumBins = 1024;
constexpr const char* kSubmissionFile = "lab00_host_program.cu";

std::string temp_file(const std::string& name, const std::vector<int>& samples, std::size_t drop_bytes = 0) {
  const std::string path = ::testing::TempDir() + "lab00_" + std::to_string(getpid()) + "_" + name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(samples.data()),
            static_cast<std::streamsize>(samples.size() * sizeof(int) - drop_bytes));
  return path;
}

grader::remote::ProgramRun run(const std::string& file) {
  const grader::remote::RunnerOptions& options = grader::student_runner().options();
  return grader::remote::run_program(options.wrapper, options.program, {file}, options.timeout_seconds);
}

std::string shown(const grader::remote::ProgramRun& r) {
  auto tail = [](const std::string& text) { return text.size() > 1500 ? "..." + text.substr(text.size() - 1500) : text; };
  return "\n  it " + r.how + "\n  stdout: " + (r.out.empty() ? "(nothing)" : tail(r.out)) +
         "\n  stderr: " + (r.err.empty() ? "(nothing)" : tail(r.err));
}

// The program's two lines: the first 10 bins exactly as data/histogram.py prints them, then a
// positive kernel time; exit status 0.
::testing::AssertionResult prints_the_bins_of(const std::string& what, const std::string& file,
                                              const std::vector<int>& samples) {
  const grader::remote::ProgramRun r = run(file);
  const std::string expected = grader::python_list(grader::cpu_histogram(samples, kNumBins), 10);
  if (r.exit_code != 0) return ::testing::AssertionFailure() << "[" << what << "] your program" << shown(r);
  std::smatch time;
  const std::string out = r.out;
  if (out.substr(0, out.find('\n')) != expected) {
    return ::testing::AssertionFailure() << "[" << what << "] the first line must be the first 10 bins, "
           << "as data/histogram.py prints them:\n  expected: " << expected << shown(r);
  }
  if (!std::regex_search(out, time, std::regex("\nkernel time: ([0-9]+\\.?[0-9]*) ms")) ||
      std::stod(time[1]) <= 0) {
    return ::testing::AssertionFailure() << "[" << what << "] the second line must be \"kernel time: "
           << "X.XXX ms\" with the kernel's time from two CUDA events (more than 0)" << shown(r);
  }
  return ::testing::AssertionSuccess();
}

// A bad file: a non-zero exit status (not a crash) and a line starting "error:" on stderr, which
// names `value` where one is given (a refusal, not a CUDA error further on).
::testing::AssertionResult refuses(const std::string& what, const std::string& file,
                                   const std::string& value = "") {
  const grader::remote::ProgramRun r = run(file);
  if (r.exit_code <= 0 || r.exit_code > 125) {
    return ::testing::AssertionFailure() << "[" << what << "] your program must refuse it: print a line "
           "starting with \"error:\" to stderr that says what is wrong, and exit with status 1" << shown(r);
  }
  if (r.err.find("error:") == std::string::npos) {
    return ::testing::AssertionFailure() << "[" << what << "] it exited with status " << r.exit_code
           << ", but printed no line starting with \"error:\" on stderr saying what is wrong" << shown(r);
  }
  if (!value.empty() && r.err.find(value) == std::string::npos) {
    return ::testing::AssertionFailure() << "[" << what << "] your program stopped, but its error message "
           "does not name the bad sample's value (" << value << "): check every sample before the GPU "
           "sees it, and say which one is wrong" << shown(r);
  }
  return ::testing::AssertionSuccess();
}

class Lab00Program : public grader::GpuTest {};

GRADED_TEST(Lab00Program, PrintsTheFirstTenBinsOfTheStandardFile, 2) {
  const std::string& path = grader::run_options().data_path;
  EXPECT_TRUE(prints_the_bins_of("the standard file " + path, path, grader::load_samples_file(path, kNumBins)));
}

GRADED_TEST(Lab00Program, MatchesOnFilesOfOtherSizes, 2) {
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1023}, grader::scaled_size(1000003)}) {
    std::vector<int> samples = grader::uniform_samples(n, kNumBins, grader::run_options().seed + n);
    if (n > 0) samples[0] = kNumBins - 1;  // the largest value, and bin 0's neighbours vary
    const std::string what = std::to_string(n) + " samples";
    EXPECT_TRUE(prints_the_bins_of(what, temp_file(std::to_string(n) + ".bin", samples), samples));
  }
}

GRADED_EDGE_TEST(Lab00Program, RefusesAMissingFile, 1) {
  EXPECT_TRUE(refuses("a file that does not exist", ::testing::TempDir() + "lab00_no_such_file.bin"));
}

GRADED_EDGE_TEST(Lab00Program, RefusesATruncatedFile, 1) {
  EXPECT_TRUE(refuses("a file of 4097 samples less 2 bytes",
                      temp_file("truncated.bin", std::vector<int>(4097, 5), 2)));
}

GRADED_EDGE_TEST(Lab00Program, RefusesASampleOf1024, 1) {
  std::vector<int> samples(5000, 3);
  samples[4321] = kNumBins;
  EXPECT_TRUE(refuses("sample 4321 is 1024", temp_file("too_large.bin", samples), "1024"));
}

GRADED_EDGE_TEST(Lab00Program, RefusesANegativeSample, 1) {
  std::vector<int> samples(5000, 3);
  samples[17] = -1;
  EXPECT_TRUE(refuses("sample 17 is -1", temp_file("negative.bin", samples), "-1"));
}

// Technique: what the program's source calls (comments and strings do not count).
class Lab00Technique : public ::testing::Test {
 protected:
  void expect_calls(const std::vector<std::string>& calls, const std::string& hint) {
    const std::string path = grader::run_options().submission + "/" + kSubmissionFile;
    const std::string code = grader::strip_comments_and_strings(grader::read_text_file(path));
    for (const std::string& call : calls) {
      const std::string pattern = call == "<<<" ? "<<<" : "\\b" + call + "\\s*\\(";
      EXPECT_TRUE(std::regex_search(code, std::regex(pattern)))
          << path << " never calls " << call << ": " << hint;
    }
  }
};

GRADED_EDGE_TEST(Lab00Technique, AllocatesCopiesAndFreesDeviceMemory, 1) {
  expect_calls({"cudaMalloc", "cudaMemcpy", "cudaFree"},
               "the samples and the bins live in GPU memory: allocate, copy, free (question 3.1)");
}

GRADED_EDGE_TEST(Lab00Technique, LaunchesTheKernelAndChecksIt, 1) {
  expect_calls({"<<<", "cudaGetLastError", "cudaDeviceSynchronize"},
               "launch histogram_kernel, then check the launch and the run (question 3.1)");
}

GRADED_EDGE_TEST(Lab00Technique, TimesTheKernelWithEvents, 1) {
  expect_calls({"cudaEventCreate", "cudaEventRecord", "cudaEventElapsedTime"},
               "two events around the launch give the kernel's time (question 3.2)");
}

}  // namespace
