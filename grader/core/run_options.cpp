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

void parse_run_options(int& argc, char** argv) {
  RunOptions& options = mutable_options();
  if (const char* seed = std::getenv("GRADER_SEED")) options.seed = parse_seed(seed, "GRADER_SEED");
  if (const char* small = std::getenv("GRADER_SMALL_INPUTS")) options.small_inputs = small[0] == '1';
  // Each also from the environment (how grade.py and the batch give them); the flag wins.
  const struct {
    const char* prefix;
    const char* variable;
    std::string* target;
  } text_flags[] = {{"--lab=", "GRADER_LAB", &options.lab},
                    {"--submission=", "GRADER_SUBMISSION", &options.submission},
                    {"--data=", "GRADER_DATA", &options.data_path},
                    {"--runner=", "GRADER_RUNNER", &options.runner_path},
                    {"--yardstick-runner=", "GRADER_YARDSTICK_RUNNER", &options.yardstick_runner_path}};
  for (const auto& flag : text_flags) {
    if (const char* value = std::getenv(flag.variable)) *flag.target = value;
  }
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    bool taken = false;
    for (const auto& flag : text_flags) {
      if (arg.rfind(flag.prefix, 0) == 0) {
        *flag.target = arg.substr(std::strlen(flag.prefix));
        taken = true;
      }
    }
    if (arg.rfind("--seed=", 0) == 0) {
      options.seed = parse_seed(arg.substr(7), "--seed");
      taken = true;
    } else if (!taken && arg.rfind("--", 0) == 0 && arg.rfind("--gtest_", 0) != 0) {
      throw UsageError("unknown option " + arg +
                       "; the grader takes --lab= --submission= --data= --runner= "
                       "--yardstick-runner= "
                       "--seed= and "
                       "GoogleTest's --gtest_* options");
    }
    if (!taken) argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
  std::uint64_t hidden = 0;
  if (batch_channel::hidden_seed(hidden)) {
    options.seed = hidden;
    options.seed_hidden = true;
  }
}

const RunOptions& run_options() { return mutable_options(); }

std::size_t scaled_size(std::size_t full_size) {
  std::size_t cap = full_size;
  if (kCpuBackend) cap = kCpuBackendMaxSize;
  if (run_options().small_inputs) cap = kSanitizerMaxSize;
  return full_size < cap ? full_size : cap;
}

}  // namespace grader
