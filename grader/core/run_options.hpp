// What one grading run was asked to do: data file, seed, input sizes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace grader {

#ifdef CUDA_CPU_BACKEND
constexpr bool kCpuBackend = true;
#else
constexpr bool kCpuBackend = false;
#endif

// Each text option is a flag (meson test passes them) or a GRADER_* variable (grade.py and the
// batch set them: grader/runs/checker.py); the flag wins.
struct RunOptions {
  std::string lab;              // --lab=lab01, GRADER_LAB: names the run
  std::string submission;       // --submission=PATH, GRADER_SUBMISSION: the folder graded
  std::string data_path;        // --data=PATH, GRADER_DATA: the standard samples file
  std::string runner_path;      // --runner=PATH, GRADER_RUNNER: the graded lab file's program
  std::string yardstick_runner_path;  // --yardstick-runner=PATH, GRADER_YARDSTICK_RUNNER
  std::uint64_t seed = 2025;    // --seed=N or GRADER_SEED: inputs the grader generates
  bool seed_hidden = false;     // the seed came from the batch harness: never printed
  bool small_inputs = false;    // GRADER_SMALL_INPUTS=1: sanitizer runs, where kernels run slowly
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Takes the grader's own --flags out of argv (GoogleTest's stay); throws UsageError on a bad one.
void parse_run_options(int& argc, char** argv);
const RunOptions& run_options();

// Sizes: the CPU backend and sanitizer runs cap large inputs so a full run stays fast; the cases
// that matter (tails, edge sizes, all-equal data) are small and never scaled.
std::size_t scaled_size(std::size_t full_size);

}  // namespace grader
