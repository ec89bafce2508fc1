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

// One channel each. A checker (a lab's tests) reads the GRADER_* environment alone
// (grader/runs/checker.py writes it for grade.py, `meson test`, the self-tests and the batch); the
// hidden seed comes in the key pipe. A tool a student runs by hand (a sweep, lab 06's equalizer)
// takes flags alone.
struct RunOptions {
  std::string lab;              // GRADER_LAB=lab01: names the run
  std::string submission;       // GRADER_SUBMISSION: the folder graded
  std::string data_path;        // GRADER_DATA, a tool's --data=PATH: the standard samples file
  std::string runner_path;      // GRADER_RUNNER: the graded lab file's program
  std::string yardstick_runner_path;  // GRADER_YARDSTICK_RUNNER: the grader's yardsticks
  std::uint64_t seed = 2025;    // GRADER_SEED, a tool's --seed=N: inputs the grader generates
  bool seed_hidden = false;     // the seed came from the batch harness: never printed
  bool small_inputs = false;    // GRADER_SMALL_INPUTS=1: sanitizer runs, where kernels run slowly
  // GRADER_EVIDENCE=1: the runner counts what its kernels execute (grader/runner/evidence.hpp), and
  // each test reports it with its verdict: the technique checks' evidence pass. Never timed.
  bool evidence = false;
  // GRADER_RACES=1 (with GRADER_EVIDENCE=1): the CPU backend's race detector watches it too: the
  // race pass (grader/counting/race_verdicts.py). Many times slower: small inputs only.
  bool races = false;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A checker's settings from the environment; throws UsageError on any option in argv that is
// not GoogleTest's (call it after InitGoogleTest has taken those).
void read_checker_options(int argc, char** argv);
// A tool's --data= and --seed= taken out of argv; throws UsageError on another --option.
void parse_tool_options(int& argc, char** argv);
const RunOptions& run_options();

// Sizes: the CPU backend and sanitizer runs cap large inputs so a full run stays fast; the cases
// that matter (tails, edge sizes, all-equal data) are small and never scaled.
std::size_t scaled_size(std::size_t full_size);
// scaled_size() of a ragged size that keeps its tail where it is cut: the capped size plus
// full_size mod 4096, so a size one short of (or past) a tile or block boundary stays so.
std::size_t scaled_ragged_size(std::size_t full_size);
// Under small inputs (the sanitizer and race passes), 1 of every `step` items a test would sweep
// (bins, launch blocks); otherwise 1.
std::size_t small_inputs_step(std::size_t step);

}  // namespace grader
