// Which device the grader runs on, and the fixtures that skip tests which cannot run on it.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

namespace grader {

struct DeviceStatus {
  bool available = false;
  std::string reason;  // why not, when not available
  cudaDeviceProp properties{};
  std::string description;  // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"
};

// Probed once per process.
const DeviceStatus& device_status();

// Correctness tests: run on a GPU and on the CPU backend; skip (with the reason) without a device.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
};

// Speed tests: need a real GPU and full-size inputs; skip on the CPU backend and sanitizer runs.
// Before and after each, the GPU's state (gpu_state.hpp) goes into the test's metrics; a test
// timed on a throttled or shared GPU says so in its message and records unfair_timing_before or
// unfair_timing_after = 1 (the batch times it again).
class SpeedTest : public GpuTest {
 protected:
  void SetUp() override;
  void TearDown() override;

 private:
  bool watched_ = false;
};

}  // namespace grader
