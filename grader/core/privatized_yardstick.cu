#include "grader/core/privatized_yardstick.cuh"

#include <map>
#include <stdexcept>
#include <string>
#include <tuple>

#include "grader/core/cuda_check.cuh"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/timing.cuh"

namespace grader {
namespace {

constexpr int kPrivatizedThreads = 256;
constexpr int kPrivatizedBlocksPerSm = 8;  // enough resident warps to hide the load latency

__global__ void histogram_privatized(const int* samples, int n, int* bins, int num_bins) {
  extern __shared__ int s_bins[];  // num_bins ints, sized by the launch
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int value = samples[i];
    if (value >= 0 && value < num_bins) atomicAdd(&s_bins[value], 1);
  }
  __syncthreads();  // every sample of the block is counted before the merge reads the bins
  for (int b = threadIdx.x; b < num_bins; b += blockDim.x) {
    if (s_bins[b] != 0) atomicAdd(&bins[b], s_bins[b]);
  }
}

}  // namespace

void privatized_histogram(const int* d_samples, int n, int* d_bins, int num_bins) {
  if (num_bins < 1 || num_bins > kPrivatizedMaxBins) {
    throw std::invalid_argument("privatized_histogram: " + std::to_string(num_bins) +
                                " bins; the yardstick takes 1 to " +
                                std::to_string(kPrivatizedMaxBins));
  }
  if (n == 0) return;
  const int blocks = device_status().properties.multiProcessorCount * kPrivatizedBlocksPerSm;
  histogram_privatized<<<blocks, kPrivatizedThreads, num_bins * sizeof(int)>>>(d_samples, n, d_bins,
                                                                             num_bins);
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
