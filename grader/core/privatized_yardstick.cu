#include "grader/core/privatized_yardstick.cuh"

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include "grader/core/cuda_check.cuh"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/timing.cuh"
#include "yardstick_kernels.cuh"  // beside this file: the CPU backend's transform inlines it

namespace grader {

void privatized_histogram(const int* d_samples, int n, int* d_bins, int num_bins) {
  if (num_bins < 1 || num_bins > kPrivatizedMaxBins) {
    throw std::invalid_argument("privatized_histogram: " + std::to_string(num_bins) +
                                " bins; the yardstick takes 1 to " +
                                std::to_string(kPrivatizedMaxBins));
  }
  if (n == 0) return;
  yardstick_kernels::launch_histogram_privatized(d_samples, n, d_bins, num_bins,
                                                 device_status().properties.multiProcessorCount);
}

Measurement measure_privatized_histogram(const int* d_samples, int n, int num_bins) {
  DeviceBuffer<int> bins(static_cast<std::size_t>(num_bins));
  Measurement m;
  m.bytes = static_cast<double>(n) * sizeof(int);
  m.time_ms = time_gpu_ms([&] {
    GRADER_CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, bins.bytes()));
    privatized_histogram(d_samples, n, bins.data(), num_bins);
  });
  check_kernel_ran("histogram_privatized (grader yardstick)", "grid-stride, shared-memory bins");
  return m;
}

}  // namespace grader
