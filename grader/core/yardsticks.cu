#include "grader/core/yardsticks.cuh"

#include "grader/core/cuda_check.cuh"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/timing.cuh"

namespace grader {
namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kVectorsPerIteration = 4;  // independent 16-byte loads in flight per thread

int grid_for_device() {
  return device_status().properties.multiProcessorCount * kBlocksPerSm;
}

// Sums everything it reads and stores only on an impossible total, so the loads cannot be
// optimised away and nothing is written.
__global__ void read_everything(const int4* data, std::size_t vector_count, const int* tail,
                                int tail_count, int* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int total = 0;
  for (; i + (kVectorsPerIteration - 1) * stride < vector_count; i += kVectorsPerIteration * stride) {
    int4 v[kVectorsPerIteration];
#pragma unroll
    for (int k = 0; k < kVectorsPerIteration; ++k) v[k] = data[i + k * stride];
#pragma unroll
    for (int k = 0; k < kVectorsPerIteration; ++k) total ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < vector_count; i += stride) total ^= data[i].x ^ data[i].y ^ data[i].z ^ data[i].w;
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail_count) total ^= tail[threadIdx.x];
  if (total == 0x7fffffff && threadIdx.x == 0x7fffffff) *sink = total;
}

__global__ void histogram_global_atomics(const int* samples, int n, int* bins, int num_bins) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int value = samples[i];
    if (value >= 0 && value < num_bins) atomicAdd(&bins[value], 1);
  }
}

}  // namespace

void read_everything_once(const int* d_data, std::size_t count, int* d_sink) {
  const std::size_t vectors = count / 4;  // device buffers are 16-byte aligned
  const int tail_count = static_cast<int>(count % 4);
  read_everything<<<grid_for_device(), kThreadsPerBlock>>>(
      reinterpret_cast<const int4*>(d_data), vectors, d_data + 4 * vectors, tail_count, d_sink);
}

Measurement measure_read_bandwidth(const int* d_data, std::size_t count) {
  DeviceBuffer<int> sink(1);
  Measurement m;
  m.bytes = static_cast<double>(count) * sizeof(int);
  m.time_ms = time_gpu_ms([&] { read_everything_once(d_data, count, sink.data()); });
  check_kernel_ran("read_everything (grader yardstick)", "read bandwidth");
  return m;
}

void baseline_histogram(const int* d_samples, int n, int* d_bins, int num_bins) {
  if (n == 0) return;
  histogram_global_atomics<<<grid_for_device(), kThreadsPerBlock>>>(d_samples, n, d_bins, num_bins);
}

Measurement measure_baseline_histogram(const int* d_samples, int n, int num_bins) {
  DeviceBuffer<int> bins(static_cast<std::size_t>(num_bins));
  Measurement m;
  m.bytes = static_cast<double>(n) * sizeof(int);
  m.time_ms = time_gpu_ms([&] {
    GRADER_CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, bins.bytes()));
    baseline_histogram(d_samples, n, bins.data(), num_bins);
  });
  check_kernel_ran("histogram_global_atomics (grader baseline)", "grid-stride");
  return m;
}

}  // namespace grader
