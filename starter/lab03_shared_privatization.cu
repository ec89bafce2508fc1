// Lab 03 - shared-memory privatization. Handout: handouts/03-shared-privatization.md.
// Fill in the TODOs; `meson test -C build --suite lab03` grades this file (correctness, speed, and
// the compiled code: the `technique` checks look for shared-memory atomics in your main loops).
//
//   v1 histogram_v1_shared_slices       private 1024 bins per block; each thread counts a slice
//   v2 histogram_v2_shared_grid_stride  the same, with the grid walking the samples together
//   v3 histogram_v3_bytes               256 byte bins, one thread per bin to zero and to merge
//   v4 histogram_v4_wide, saturate_v4   4096 bins, then a second kernel caps every bin
//   v5 histogram_v5_letters             7 bins of letters; every other byte is skipped
#include <cstdint>

#include "lab03_shared_privatization.cuh"

namespace lab03 {
namespace {

// v1: a block-local histogram in shared memory, merged into d_bins at the end.
__global__ void histogram_v1_shared_slices_kernel(const int* d_samples, int n, int* d_bins,
                                                  int samples_per_thread) {
  __shared__ int s_bins[kNumBins];
  // TODO(Q2.1): zero s_bins with a loop that works for any blockDim.x, even one smaller than
  // kNumBins; then a barrier, so no thread counts into a bin that is not zeroed yet (3 lines).

  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long begin = thread * samples_per_thread;
  const long long end = begin + samples_per_thread < n ? begin + samples_per_thread : n;
  // TODO(Q2.2): count samples [begin, end) into s_bins with atomicAdd (2 lines).

  // TODO(Q2.3): wait for every thread of the block, then add each non-empty private bin into
  // d_bins with one atomicAdd, again for any blockDim.x (4 lines).
}

// v2: v1 with a grid-stride loop instead of slices.
__global__ void histogram_v2_shared_grid_stride_kernel(const int* d_samples, int n, int* d_bins) {
  __shared__ int s_bins[kNumBins];
  // TODO(Q2.5): zero, barrier, a grid-stride loop counting into s_bins, barrier, merge
  // (about 10 lines). Stretch (Q8): 60 % of the read bandwidth, the tail kept exact.
}

// v3: blockDim.x == kByteBins: thread t zeroes and merges bin t.
__global__ void __launch_bounds__(kByteBins)
    histogram_v3_bytes_kernel(const unsigned char* d_bytes, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kByteBins];
  // TODO(Q3.1): zero your bin, barrier, grid-stride loop over the bytes, barrier, merge your bin
  // (about 8 lines, no loop for the zeroing or the merge).
}

// v4: 4096 bins of 12-bit values.
__global__ void histogram_v4_wide_kernel(const unsigned int* d_values, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kWideBins];
  // TODO(Q4.1): v2 over kWideBins bins: its plain form (about 10 lines), or with its 16-byte loads
  // and their scalar tail (about 20 lines).
}

// v4, second kernel: one thread per bin.
constexpr int kSaturateThreads = 256;

__global__ void __launch_bounds__(kSaturateThreads)
    saturate_v4_kernel(unsigned int* d_bins, int num_bins, unsigned int cap) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  // TODO(Q4.2): if bin b exists and holds more than cap, set it to cap (2 lines).
}

// v5: 'a'..'z' in groups of kLettersPerBin; every other byte is ignored.
__global__ void histogram_v5_letters_kernel(const unsigned char* d_text, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kLetterBins];
  // TODO(Q5.1): zero (blocks may have fewer than 7 threads), barrier, a grid-stride loop counting
  // the letters into s_bins, barrier, merge (about 12 lines).
}

}  // namespace

void histogram_v1_shared_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  const long long per_block = static_cast<long long>(launch.threads_per_block) * launch.samples_per_thread;
  const int blocks = static_cast<int>((n + per_block - 1) / per_block);
  histogram_v1_shared_slices_kernel<<<blocks, launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                          launch.samples_per_thread);
}

void histogram_v2_shared_grid_stride(const int* d_samples, int n, int* d_bins, GridStrideLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v2_shared_grid_stride_kernel<<<launch.blocks, launch.threads_per_block>>>(d_samples, n, d_bins);
}

void histogram_v3_bytes(const unsigned char* d_bytes, int n, unsigned int* d_bins, int blocks) {
  cudaMemsetAsync(d_bins, 0, kByteBins * sizeof(unsigned int));
  if (n == 0) return;
  histogram_v3_bytes_kernel<<<blocks, kByteBins>>>(d_bytes, n, d_bins);
}

void histogram_v4_wide(const unsigned int* d_values, int n, unsigned int* d_bins, GridStrideLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kWideBins * sizeof(unsigned int));
  if (n == 0) return;
  histogram_v4_wide_kernel<<<launch.blocks, launch.threads_per_block>>>(d_values, n, d_bins);
}

void saturate_v4(unsigned int* d_bins, int num_bins, unsigned int cap) {
  if (num_bins == 0) return;
  const int blocks = (num_bins + kSaturateThreads - 1) / kSaturateThreads;
  saturate_v4_kernel<<<blocks, kSaturateThreads>>>(d_bins, num_bins, cap);
}

void histogram_v5_letters(const unsigned char* d_text, int n, unsigned int* d_bins, GridStrideLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kLetterBins * sizeof(unsigned int));
  if (n == 0) return;
  histogram_v5_letters_kernel<<<launch.blocks, launch.threads_per_block>>>(d_text, n, d_bins);
}

// TODO(Q2.4): after running the sweep, return the shapes that were fastest on your GPU.
SliceLaunch fastest_slice_launch() { return {256, 64}; }
GridStrideLaunch fastest_grid_stride_launch(int sm_count) { return {8 * sm_count, 256}; }

}  // namespace lab03
