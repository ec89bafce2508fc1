// The yardsticks' kernels and launch shapes (yardsticks.cu, privatized_yardstick.cu time them),
// here with nothing else so that the CPU backend's counting mode and Nsight Compute can run the
// very same kernels (grader/core/yardsticks_count.cu). Templates, so that every
// file that includes them may, without two definitions. Include it by a path relative to the
// including file: the CPU backend's launch transform inlines it then (its launches and its
// extern __shared__ need the transform).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace grader {
namespace yardstick_kernels {

constexpr int kThreadsPerBlock = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kVectorsPerIteration = 4;  // independent 16-byte loads in flight per thread
constexpr int kPrivatizedThreads = 256;
constexpr int kPrivatizedBlocksPerSm = 8;  // enough resident warps to hide the load latency

// Sums everything it reads and stores only on an impossible total, so the loads cannot be
// optimised away and nothing is written.
template <int kVectors = kVectorsPerIteration>
__global__ void read_everything(const int4* data, std::size_t vector_count, const int* tail, int tail_count,
                                int* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  int total = 0;
  for (; i + (kVectors - 1) * stride < vector_count; i += kVectors * stride) {
    int4 v[kVectors];
#pragma unroll
    for (int k = 0; k < kVectors; ++k) v[k] = data[i + k * stride];
#pragma unroll
    for (int k = 0; k < kVectors; ++k) total ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
  for (; i < vector_count; i += stride) total ^= data[i].x ^ data[i].y ^ data[i].z ^ data[i].w;
  if (blockIdx.x == 0 && static_cast<int>(threadIdx.x) < tail_count) total ^= tail[threadIdx.x];
  if (total == 0x7fffffff && threadIdx.x == 0x7fffffff) *sink = total;
}

// The baseline: one global atomic per sample.
template <typename Sample = int>
__global__ void histogram_global_atomics(const Sample* samples, int n, int* bins, int num_bins) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int value = samples[i];
    if (value >= 0 && value < num_bins) atomicAdd(&bins[value], 1);
  }
}

// Private bins in shared memory (num_bins ints, sized by the launch), merged once per block.
template <typename Sample = int>
__global__ void histogram_privatized(const Sample* samples, int n, int* bins, int num_bins) {
  extern __shared__ int s_bins[];
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

// The launches, on a GPU of `sms` multiprocessors (device_status() gives the grader's).
inline void launch_read_everything(const int* d_data, std::size_t count, int* d_sink, int sms) {
  const std::size_t vectors = count / 4;  // device buffers are 16-byte aligned
  read_everything<kVectorsPerIteration><<<sms * kBlocksPerSm, kThreadsPerBlock>>>(
      reinterpret_cast<const int4*>(d_data), vectors, d_data + 4 * vectors, static_cast<int>(count % 4), d_sink);
}

inline void launch_histogram_global_atomics(const int* d_samples, int n, int* d_bins, int num_bins, int sms) {
  histogram_global_atomics<int><<<sms * kBlocksPerSm, kThreadsPerBlock>>>(d_samples, n, d_bins, num_bins);
}

inline void launch_histogram_privatized(const int* d_samples, int n, int* d_bins, int num_bins, int sms) {
  histogram_privatized<int><<<sms * kPrivatizedBlocksPerSm, kPrivatizedThreads, num_bins * sizeof(int)>>>(
      d_samples, n, d_bins, num_bins);
}

}  // namespace yardstick_kernels
}  // namespace grader
