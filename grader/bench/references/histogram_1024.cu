// 1024 bins of int samples, the story of labs 01 to 03 (handouts 01, 02, 03 (a)).
//   v1 global slices       each thread counts a contiguous slice, one global atomicAdd per sample
//   v2 global grid-stride  the grid walks the samples together, so each warp's loads coalesce
//   v3 global unroll       v1 under #pragma unroll 8: more loads issued per trip (lab 02)
//   v4 global ILP          four loads into registers before their four atomics (lab 02)
//   v5 shared slices       private bins in shared memory per block, merged once: cheap atomics
//   v6 shared grid-stride  v5 with the grid walking together, two 16-byte loads per trip
// Figures: handouts/benchmark.md (the benchmark's runs); notes: grader/bench/NOTES.md.
#include <cstdint>

#include "grader/bench/references/references.cuh"

namespace bench::reference {
namespace {

// The samples [begin, end) of this thread's slice; the last slice is cut short at n.
struct Slice {
  long long begin, end;
};
__device__ Slice my_slice(int n, int samples_per_thread) {
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long begin = thread * samples_per_thread;
  return {begin, begin + samples_per_thread < n ? begin + samples_per_thread : n};
}

int blocks_for(int n, SliceLaunch launch) {
  const long long per_block = static_cast<long long>(launch.threads_per_block) * launch.samples_per_thread;
  return static_cast<int>((n + per_block - 1) / per_block);
}

// v1: the starting point: one load and one global atomic per sample.
__global__ void v1_global_slices(const int* d_samples, int n, int* d_bins, int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
  for (long long i = s.begin; i < s.end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
}

// v2: neighbouring threads read neighbouring samples: one 128-byte transaction per warp load.
__global__ void v2_global_grid_stride(const int* d_samples, int n, int* d_bins) {
  const int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&d_bins[d_samples[i]], 1);
}

// v3: the compiler unrolls by 8 and keeps a remainder loop for the tail.
__global__ void v3_global_unroll(const int* d_samples, int n, int* d_bins, int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
#pragma unroll 8
  for (long long i = s.begin; i < s.end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
}

// v4: four samples in flight before the first atomic waits (loads and atomics could alias).
__global__ void v4_global_ilp(const int* d_samples, int n, int* d_bins, int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
  long long i = s.begin;
  for (; i + 4 <= s.end; i += 4) {
    const int a = d_samples[i], b = d_samples[i + 1], c = d_samples[i + 2], d = d_samples[i + 3];
    atomicAdd(&d_bins[a], 1);
    atomicAdd(&d_bins[b], 1);
    atomicAdd(&d_bins[c], 1);
    atomicAdd(&d_bins[d], 1);
  }
  for (; i < s.end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
}

// Private bins: zeroed by any number of threads, merged with one global atomic per non-empty bin.
__device__ void zero_private(int* s_bins, int count) {
  for (int b = threadIdx.x; b < count; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
}
__device__ void merge_private(const int* s_bins, int* d_bins, int count) {
  __syncthreads();
  for (int b = threadIdx.x; b < count; b += blockDim.x) {
    if (s_bins[b] != 0) atomicAdd(&d_bins[b], s_bins[b]);
  }
}

// v5: v1 counting into shared memory, where an atomic costs a fraction of a global one.
__global__ void v5_shared_slices(const int* d_samples, int n, int* d_bins, int samples_per_thread) {
  __shared__ int s_bins[kBins1024];
  zero_private(s_bins, kBins1024);
  const Slice s = my_slice(n, samples_per_thread);
  for (long long i = s.begin; i < s.end; ++i) atomicAdd(&s_bins[d_samples[i]], 1);
  merge_private(s_bins, d_bins, kBins1024);
}

__device__ void count_four(int* s_bins, const int4& v) {
  atomicAdd(&s_bins[v.x], 1);
  atomicAdd(&s_bins[v.y], 1);
  atomicAdd(&s_bins[v.z], 1);
  atomicAdd(&s_bins[v.w], 1);
}

// v6: v2 into shared memory; two int4 per trip, both loaded before the first atomic (32 bytes in
// flight per thread), few large blocks so the zeroing and merging are paid rarely.
__global__ void v6_shared_grid_stride(const int* d_samples, int n, int* d_bins) {
  __shared__ int s_bins[kBins1024];
  zero_private(s_bins, kBins1024);
  const int stride = gridDim.x * blockDim.x;
  int tail = 0;
  if (reinterpret_cast<std::uintptr_t>(d_samples) % alignof(int4) == 0) {
    const int4* d_vectors = reinterpret_cast<const int4*>(d_samples);
    const int vectors = n / 4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + stride < vectors; i += 2 * stride) {
      const int4 first = d_vectors[i];
      const int4 second = d_vectors[i + stride];
      count_four(s_bins, first);
      count_four(s_bins, second);
    }
    if (i < vectors) count_four(s_bins, d_vectors[i]);
    tail = 4 * vectors;
  }
  for (int i = tail + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&s_bins[d_samples[i]], 1);
  }
  merge_private(s_bins, d_bins, kBins1024);
}

}  // namespace

void histogram_1024_v1_global_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kBins1024 * sizeof(int));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  v1_global_slices<<<blocks_for(n, launch), launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                        launch.samples_per_thread);
}

void histogram_1024_v2_global_grid_stride(const int* d_samples, int n, int* d_bins, GridLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kBins1024 * sizeof(int));
  if (n == 0) return;
  v2_global_grid_stride<<<launch.blocks, launch.threads_per_block>>>(d_samples, n, d_bins);
}

void histogram_1024_v3_global_unroll(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kBins1024 * sizeof(int));
  if (n == 0) return;
  v3_global_unroll<<<blocks_for(n, launch), launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                        launch.samples_per_thread);
}

void histogram_1024_v4_global_ilp(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kBins1024 * sizeof(int));
  if (n == 0) return;
  v4_global_ilp<<<blocks_for(n, launch), launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                     launch.samples_per_thread);
}

void histogram_1024_v5_shared_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kBins1024 * sizeof(int));
  if (n == 0) return;
  v5_shared_slices<<<blocks_for(n, launch), launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                        launch.samples_per_thread);
}

void histogram_1024_v6_shared_grid_stride(const int* d_samples, int n, int* d_bins, GridLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kBins1024 * sizeof(int));
  if (n == 0) return;
  v6_shared_grid_stride<<<launch.blocks, launch.threads_per_block>>>(d_samples, n, d_bins);
}

SliceLaunch global_slice_launch() { return {256, 64}; }
GridLaunch global_grid_launch(int sm_count) { return {8 * sm_count, 256}; }
SliceLaunch shared_slice_launch() { return {256, 16}; }
GridLaunch shared_grid_launch(int sm_count) { return {2 * sm_count, 1024}; }

}  // namespace bench::reference
