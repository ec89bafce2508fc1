// Lab 02 - unrolling and instruction-level parallelism: reference solution.
// Handout: handouts/02-unrolling-ilp.md.
//
//   v1 histogram_v1_slices         lab 01's slice kernel (the compiler already unrolls it 4 times)
//   v2 histogram_v2_pragma_unroll  #pragma unroll kUnrollFactor: 8 loads and 8 atomics a trip
//   v3 histogram_v3_manual_ilp     4 samples loaded into registers before their 4 atomics
#include "lab02_unrolling_ilp.cuh"

namespace lab02 {
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

// v1: one load and one atomic per sample; read its SASS before changing anything (Q1).
__global__ void histogram_v1_slices_kernel(const int* d_samples, int n, int* d_bins,
                                           int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
  for (long long i = s.begin; i < s.end; ++i) {
    atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

// v2: the compiler copies the body kUnrollFactor times and keeps a remainder loop for the last
// slice % kUnrollFactor samples, so the tail needs no code of ours.
__global__ void histogram_v2_pragma_unroll_kernel(const int* d_samples, int n, int* d_bins,
                                                  int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
#pragma unroll kUnrollFactor
  for (long long i = s.begin; i < s.end; ++i) {
    atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

// v3: the four loads are issued back to back, so four samples are in flight before the first
// atomic waits for its operand; written as load-atomic pairs, d_bins might alias d_samples and the
// compiler would have to keep each load behind the previous atomic.
__global__ void histogram_v3_manual_ilp_kernel(const int* d_samples, int n, int* d_bins,
                                               int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
  long long i = s.begin;
  for (; i + kIlpWays <= s.end; i += kIlpWays) {
    const int a = d_samples[i];
    const int b = d_samples[i + 1];
    const int c = d_samples[i + 2];
    const int d = d_samples[i + 3];
    atomicAdd(&d_bins[a], 1);
    atomicAdd(&d_bins[b], 1);
    atomicAdd(&d_bins[c], 1);
    atomicAdd(&d_bins[d], 1);
  }
  for (; i < s.end; ++i) {  // the last slice % 4 samples
    atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

// Enough blocks for every sample to belong to some thread's slice.
int blocks_for(int n, SliceLaunch launch) {
  const long long per_block = static_cast<long long>(launch.threads_per_block) * launch.samples_per_thread;
  return static_cast<int>((n + per_block - 1) / per_block);
}

}  // namespace

void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  histogram_v1_slices_kernel<<<blocks_for(n, launch), launch.threads_per_block>>>(
      d_samples, n, d_bins, launch.samples_per_thread);
}

void histogram_v2_pragma_unroll(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v2_pragma_unroll_kernel<<<blocks_for(n, launch), launch.threads_per_block>>>(
      d_samples, n, d_bins, launch.samples_per_thread);
}

void histogram_v3_manual_ilp(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v3_manual_ilp_kernel<<<blocks_for(n, launch), launch.threads_per_block>>>(
      d_samples, n, d_bins, launch.samples_per_thread);
}

// Measured with lab02_sweep on an H200 and an H100: every shape and version took 2.84-2.94 ms.
SliceLaunch fastest_slice_launch() { return {256, 64}; }

}  // namespace lab02
