#include "grader/core/run_options.hpp"

#include "grader/core/results_channel.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

namespace grader {
namespace {

constexpr std::size_t kCpuBackendMaxSize = std::size_t{1} << 20;
constexpr std::size_t kSanitizerMaxSize = std::size_t{1} << 16;

RunOptions& mutable_options() {
  static RunOptions options;
  return options;
}

std::uint64_t parse_seed(const std::string& text, const std::string& source) {
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text[0] == '-') {
    throw UsageError(source + ": \"" + text + "\" is not a seed; give a non-negative integer");
  }
  return value;
}

}  // namespace

void read_checker_options(int argc, char** argv) {
  RunOptions& options = mutable_options();
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) == 0 && arg.rfind("--gtest_", 0) != 0) {
      throw UsageError("unknown option " + arg +
                       ": a checker takes its settings from the GRADER_* environment "
                       "(GRADER_LAB, GRADER_DATA, GRADER_RUNNER, GRADER_YARDSTICK_RUNNER, "
                       "GRADER_SUBMISSION, GRADER_SEED; grader/runs/checker.py writes them) and "
                       "only GoogleTest's --gtest_* options on its command line. To grade a lab, "
                       "run python3 grader/grade.py --labs NN");
    }
  }
  const struct {
    const char* variable;
    std::string* target;
  } text_settings[] = {{"GRADER_LAB", &options.lab},
                       {"GRADER_SUBMISSION", &options.submission},
                       {"GRADER_DATA", &options.data_path},
                       {"GRADER_RUNNER", &options.runner_path},
                       {"GRADER_YARDSTICK_RUNNER", &options.yardstick_runner_path}};
  for (const auto& setting : text_settings) {
    if (const char* value = std::getenv(setting.variable)) *setting.target = value;
  }
  if (const char* seed = std::getenv("GRADER_SEED")) options.seed = parse_seed(seed, "GRADER_SEED");
  if (const char* small = std::getenv("GRADER_SMALL_INPUTS")) options.small_inputs = small[0] == '1';
  if (const char* evidence = std::getenv("GRADER_EVIDENCE")) options.evidence = evidence[0] == '1';
  if (const char* races = std::getenv("GRADER_RACES")) options.races = options.evidence && races[0] == '1';
  std::uint64_t hidden = 0;
  if (results_channel::hidden_seed(hidden)) {
    options.seed = hidden;
    options.seed_hidden = true;
  }
}

void parse_tool_options(int& argc, char** argv) {
  RunOptions& options = mutable_options();
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--data=", 0) == 0) {
      options.data_path = arg.substr(7);
    } else if (arg.rfind("--seed=", 0) == 0) {
      options.seed = parse_seed(arg.substr(7), "--seed");
    } else if (arg.rfind("--", 0) == 0) {
      throw UsageError("unknown option " + arg + "; this program takes --data=PATH and --seed=N");
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  argv[argc] = nullptr;
}

const RunOptions& run_options() { return mutable_options(); }

std::size_t scaled_size(std::size_t full_size) {
  std::size_t cap = full_size;
  if (kCpuBackend) cap = kCpuBackendMaxSize;
  if (run_options().small_inputs) cap = kSanitizerMaxSize;
  return full_size < cap ? full_size : cap;
}

std::size_t scaled_ragged_size(std::size_t full_size) {
  const std::size_t scaled = scaled_size(full_size);
  return scaled == full_size ? full_size : scaled + full_size % 4096;
}

std::size_t small_inputs_step(std::size_t step) { return run_options().small_inputs ? step : 1; }

}  // namespace grader
