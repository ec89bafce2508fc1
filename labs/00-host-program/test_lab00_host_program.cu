// Lab 00 grader: runs the student's whole program as a separate process on the standard file, on
// generated files of other sizes and on bad files, and compares its output and exit status with
// what data/histogram.py would print; counts what it did on the GPU as the runners' calls are
// counted (grader/runner/program_report.hpp), the bins it printed among those it copied back;
// reads its source for the calls the lab asks for.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <optional>
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
#include "grader/runner/program_report.hpp"
#include "grader/runner/program_run.hpp"

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

grader::runner::ProgramRun run(const std::string& file, bool counted = false) {
  const grader::runner::RunnerOptions& options = grader::student_runner().options();
  return grader::runner::run_program(options.wrapper, options.program, {file}, options.timeout_seconds, counted);
}

std::string shown(const grader::runner::ProgramRun& r) {
  auto tail = [](const std::string& text) { return text.size() > 1500 ? "..." + text.substr(text.size() - 1500) : text; };
  return "\n  it " + r.how + "\n  stdout: " + (r.out.empty() ? "(nothing)" : tail(r.out)) +
         "\n  stderr: " + (r.err.empty() ? "(nothing)" : tail(r.err));
}

// Bytes the program may copy back from the GPU: the bins, and a little more (an error flag, a
// second look at a few values), never the samples.
constexpr std::uint64_t kMaxDeviceToHostBytes = kNumBins * sizeof(int) + 4096;

// The bins it printed (the first 10, `printed`) are bins it copied back from the GPU: the first
// values of one of its last copies back (none needed for an empty file). A kernel that counts
// wrongly, beside bins counted on the host for the line, fails here.
::testing::AssertionResult copied_back_what_it_printed(const std::string& what, const grader::runner::ProgramRun& r,
                                                       const grader::runner::ProgramCounts& counts,
                                                       std::size_t samples, const std::vector<int>& printed) {
  const std::vector<long long> line(printed.begin(), printed.begin() + grader::runner::kHeadValues);
  for (const std::vector<long long>& head : counts.d2h_heads) {
    if (head == line) return ::testing::AssertionSuccess();
  }
  if (counts.d2h_heads.empty() && samples == 0) return ::testing::AssertionSuccess();
  std::string back;
  for (const std::vector<long long>& head : counts.d2h_heads) {
    back += back.empty() ? "[" : "; [";
    for (std::size_t v = 0; v < head.size(); ++v) back += (v ? ", " : "") + std::to_string(head[v]);
    back += "]";
  }
  return ::testing::AssertionFailure() << "[" << what << "] your program printed the right bins, but not "
         "bins it copied back from the GPU: its copies back began " << (back.empty() ? "(none: no copy of "
         "10 values or more)" : back) << ". The GPU counts: print the bins the kernel counted, copied "
         "back with cudaMemcpy, never bins counted on the host" << shown(r);
}

// What its counters saw: a kernel (where there is a sample to count), the whole file copied to
// the GPU, no more than the bins copied back, no host memory the GPU can read, the bins it
// printed among those copied back, and a printed time that a kernel it ran can have taken: at
// least half the longest kernel's run, at most ten times all its kernels' plus 50 ms (the first
// launch may load the module between the events).
::testing::AssertionResult worked_on_the_gpu(const std::string& what, const grader::runner::ProgramRun& r,
                                             std::size_t samples, double printed_ms,
                                             const std::vector<int>& printed) {
  const std::optional<grader::runner::ProgramCounts> counts = grader::runner::parse_program_report(r.report, r.token);
  if (!counts) {
    // Under a sanitizer (a wrapper) the counters cannot load: that run repeats tests that passed
    // with these checks in a normal run, and judges hazards only.
    if (!grader::student_runner().options().wrapper.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "[" << what << "] the grader counted no GPU work: your program "
           "launched no kernel it could see. What a program does on the GPU is counted from its first CUDA "
           "call to its exit, and nothing came back: no CUDA call at all, or an end that skips exit() "
           "(_exit, a crash, a signal)" << shown(r);
  }
  const std::uint64_t file_bytes = samples * sizeof(int);
  if (!counts->host_memory.empty()) {
    return ::testing::AssertionFailure() << "[" << what << "] your program allocated host memory the GPU can "
           "read (" << counts->host_memory << "): the samples and the bins live in GPU memory (cudaMalloc) "
           "and travel with cudaMemcpy" << shown(r);
  }
  if (samples > 0 && counts->kernels == 0) {
    return ::testing::AssertionFailure() << "[" << what << "] your program launched no kernel: the samples "
           "must be counted on the GPU, by histogram_kernel" << shown(r);
  }
  if (counts->host_to_device_bytes < file_bytes) {
    return ::testing::AssertionFailure() << "[" << what << "] your program copied " << counts->host_to_device_bytes
           << " bytes to the GPU, less than the file's " << file_bytes << ": the kernel must read every "
           "sample" << shown(r);
  }
  if (counts->device_to_host_bytes > kMaxDeviceToHostBytes) {
    return ::testing::AssertionFailure() << "[" << what << "] your program copied " << counts->device_to_host_bytes
           << " bytes back from the GPU, more than the bins' " << kNumBins * sizeof(int) << ": the GPU "
           "counts, and only the bins come back" << shown(r);
  }
  const ::testing::AssertionResult copied = copied_back_what_it_printed(what, r, *counts, samples, printed);
  if (!copied) return copied;
  const double longest_ms = counts->longest_kernel_ns / 1e6, all_ms = counts->kernel_ns / 1e6;
  // %.3f rounds to a microsecond: a kernel of a few microseconds may print as 0.001.
  if (printed_ms + 0.002 < longest_ms / 2 || printed_ms > 10 * all_ms + 50) {
    return ::testing::AssertionFailure() << "[" << what << "] your program printed a kernel time of " << printed_ms
           << " ms, but its kernels ran " << all_ms << " ms (the longest " << longest_ms << " ms): time "
           "the kernel with two events around its launch, and print what cudaEventElapsedTime gives"
           << shown(r);
  }
  return ::testing::AssertionSuccess();
}

// The program's two lines: the first 10 bins exactly as data/histogram.py prints them, then a
// positive kernel time; exit status 0; and the work done on the GPU (worked_on_the_gpu).
::testing::AssertionResult prints_the_bins_of(const std::string& what, const std::string& file,
                                              const std::vector<int>& samples) {
  const grader::runner::ProgramRun r = run(file, /*counted=*/true);
  const std::vector<int> bins = grader::cpu_histogram(samples, kNumBins);
  const std::string expected = grader::python_list(bins, 10);
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
  return worked_on_the_gpu(what, r, samples.size(), std::stod(time[1]), bins);
}

// A bad file: a non-zero exit status (not a crash) and a line starting "error:" on stderr, which
// names `value` where one is given (a refusal, not a CUDA error further on).
::testing::AssertionResult refuses(const std::string& what, const std::string& file,
                                   const std::string& value = "") {
  const grader::runner::ProgramRun r = run(file);
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
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{1023}, grader::scaled_ragged_size(1000003)}) {
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
