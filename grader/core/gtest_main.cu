// The grader's main(): reads the grader's own options, records results, and returns 77 (meson's
// SKIP) when every test was skipped, so a machine without a GPU shows SKIP, never a false PASS.
#include <gtest/gtest.h>

#include <cstdio>

#include "grader/core/device.cuh"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"

namespace {

constexpr int kExitAllSkipped = 77;

bool every_test_skipped(const ::testing::UnitTest& unit) {
  return unit.test_to_run_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count();
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  try {
    grader::parse_run_options(argc, argv);
  } catch (const grader::UsageError& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
  const grader::DeviceStatus& device = grader::device_status();
  const grader::RunContext context{grader::kCpuBackend ? "cpu" : "cuda",
                                   device.available ? device.description : device.reason};
  if (grader::run_options().seed_hidden) {
    std::printf("[ grader   ] backend %s, device: %s, seed hidden\n", context.backend.c_str(),
                context.device.c_str());
  } else {
    std::printf("[ grader   ] backend %s, device: %s, seed %llu\n", context.backend.c_str(),
                context.device.c_str(), static_cast<unsigned long long>(grader::run_options().seed));
  }
  ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  unit.listeners().Append(grader::new_results_listener(context));
  const int failed = RUN_ALL_TESTS();
  if (failed == 0 && every_test_skipped(unit)) return kExitAllSkipped;
  return failed;
}
