// Lab 02 - unrolling and instruction-level parallelism: what the grader calls in
// starter/lab02_unrolling_ilp.cu.
//
// Versions, in the order of handouts/02-unrolling-ilp.md:
//   histogram_v1_slices         lab 01's slice kernel, given: the reference point
//   histogram_v2_pragma_unroll  the same loop under #pragma unroll kUnrollFactor
//   histogram_v3_manual_ilp     unrolled by hand: kIlpWays independent loads, then kIlpWays atomics
// All three add into d_bins with atomicAdd on global memory, one slice of samples per thread.
#pragma once
#include <cuda_runtime.h>


namespace lab02 {

constexpr int kNumBins = 1024;     // 10-bit samples: values 0..1023
constexpr int kUnrollFactor = 8;   // v2: the factor of #pragma unroll
constexpr int kIlpWays = 4;        // v3: samples loaded before the first of their atomics

struct SliceLaunch {
  int threads_per_block;
  int samples_per_thread;  // the "slice"; any value >= 1, not only multiples of 4 or 8
};

// Each launcher leaves the full histogram of d_samples[0..n) in d_bins[0..kNumBins), whatever
// d_bins held before (the grader fills it with garbage first), and returns without waiting.
void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch);
void histogram_v2_pragma_unroll(const int* d_samples, int n, int* d_bins, SliceLaunch launch);
void histogram_v3_manual_ilp(const int* d_samples, int n, int* d_bins, SliceLaunch launch);

// The launch shape the speed tests use (handout question 4.1).
SliceLaunch fastest_slice_launch();

}  // namespace lab02
