// Lab 03 - shared-memory privatization: what the grader calls in
// starter/lab03_shared_privatization.cu.
//
// Every version counts into a block-private histogram in shared memory, then merges it into the
// global bins with one atomicAdd per non-empty bin. Versions, in the order of
// handouts/03-shared-privatization.md:
//   (a) 1024 bins, 10-bit int samples (the standard data)
//       histogram_v1_shared_slices       each thread counts a contiguous slice (sectioned)
//       histogram_v2_shared_grid_stride  the grid walks the samples together (strided)
//   (b) histogram_v3_bytes               256 bins of bytes, one block thread per bin
//   (c) histogram_v4_wide                4096 bins of 12-bit values
//       saturate_v4                      a second kernel: every bin becomes min(bin, cap)
//   (d) histogram_v5_letters             'a'..'z' in groups of four: 7 bins; other bytes ignored
#pragma once
#include <cuda_runtime.h>


namespace lab03 {

constexpr int kNumBins = 1024;      // (a) values 0..1023
constexpr int kByteBins = 256;      // (b) one bin per byte value; also the block size of v3
constexpr int kWideBins = 4096;     // (c) values 0..4095
constexpr int kLettersPerBin = 4;   // (d) a-d, e-h, ..., u-x, y-z
constexpr int kLetterBins = 7;

struct SliceLaunch {
  int threads_per_block;   // any value from 1 to 1024: fewer threads than bins too
  int samples_per_thread;
};

struct GridStrideLaunch {
  int blocks;
  int threads_per_block;   // any value from 1 to 1024
};

// Each histogram launcher leaves the full histogram of its input in the bins, whatever they held
// before (the grader fills them with garbage first), and returns without waiting for the kernel.
void histogram_v1_shared_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch);
void histogram_v2_shared_grid_stride(const int* d_samples, int n, int* d_bins,
                                     GridStrideLaunch launch);
// blocks of kByteBins threads each.
void histogram_v3_bytes(const unsigned char* d_bytes, int n, unsigned int* d_bins, int blocks);
void histogram_v4_wide(const unsigned int* d_values, int n, unsigned int* d_bins,
                       GridStrideLaunch launch);
// In place: d_bins[i] = min(d_bins[i], cap) for i in [0, num_bins).
void saturate_v4(unsigned int* d_bins, int num_bins, unsigned int cap);
void histogram_v5_letters(const unsigned char* d_text, int n, unsigned int* d_bins,
                          GridStrideLaunch launch);

// The launch shapes you found fastest (handout question 2.4); the speed tests use them.
SliceLaunch fastest_slice_launch();
GridStrideLaunch fastest_grid_stride_launch(int sm_count);

}  // namespace lab03
