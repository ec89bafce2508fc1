// Lab 01 - global-memory atomics: what the grader calls in starter/lab01_global_atomics.cu.
//
// Versions, in the order of handouts/01-global-atomics.md:
//   histogram_v1_slices      each thread counts its own contiguous slice of samples
//   histogram_v2_grid_stride the threads of the grid walk the samples together (coalesced)
// Both add into d_bins with atomicAdd on global memory.
#pragma once
#include <cuda_runtime.h>


namespace lab01 {

constexpr int kNumBins = 1024;  // 10-bit samples: values 0..1023

struct SliceLaunch {
  int threads_per_block;
  int samples_per_thread;  // the "slice"
};

struct GridStrideLaunch {
  int blocks;
  int threads_per_block;
};

// Each launcher leaves the full histogram of d_samples[0..n) in d_bins[0..kNumBins), whatever
// d_bins held before (the grader fills it with garbage first). It returns without waiting for the
// kernel; the grader checks the launch and waits.
void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch);
void histogram_v2_grid_stride(const int* d_samples, int n, int* d_bins, GridStrideLaunch launch);

// The launch shapes you found fastest (handout question 2.4); the speed tests use them.
SliceLaunch fastest_slice_launch();
GridStrideLaunch fastest_grid_stride_launch(int sm_count);

}  // namespace lab01
