#include "grader/core/device.cuh"

#include <sstream>

#include "grader/core/cuda_check.cuh"
#include "grader/core/run_options.hpp"
#include "grader/core/student_code.hpp"

namespace grader {
namespace {

DeviceStatus probe() {
  DeviceStatus status;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    status.reason = "no CUDA device (" + std::string(cudaGetErrorString(error)) +
                    "): GPU tests need an NVIDIA GPU and driver; configure with -Dkernel_backend=cpu to "
                    "check correctness on the CPU backend";
    return status;
  }
  const cudaError_t properties_error = cudaGetDeviceProperties(&status.properties, 0);
  if (properties_error != cudaSuccess) {
    status.reason = "cannot read the device's properties: " + describe_cuda_error(properties_error);
    return status;
  }
  std::ostringstream text;
  text << status.properties.name;
  if (!kCpuBackend) {
    text << " (sm_" << status.properties.major << status.properties.minor << ", "
         << status.properties.multiProcessorCount << " SMs)";
  }
  status.description = text.str();
  status.available = true;
  return status;
}

}  // namespace

const DeviceStatus& device_status() {
  static const DeviceStatus status = probe();
  return status;
}

void GpuTest::SetUp() {
  discard_student_calls();  // nothing a previous test left unchecked is blamed on this one
  if (!device_status().available) GTEST_SKIP() << device_status().reason;
}

void SpeedTest::SetUp() {
  GpuTest::SetUp();
  if (IsSkipped()) return;
  if (kCpuBackend) GTEST_SKIP() << "timing needs a GPU: the CPU backend checks correctness only";
  if (run_options().small_inputs) {
    GTEST_SKIP() << "speed is not measured on small inputs (sanitizer runs)";
  }
}

}  // namespace grader
