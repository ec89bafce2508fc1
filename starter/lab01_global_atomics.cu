// Lab 01 - global-memory atomics. Handout: handouts/01-global-atomics.md.
// Fill in the TODOs; `meson test -C build --suite lab01` grades this file.
//
//   v1 histogram_v1_slices      each thread counts a contiguous slice of samples
//   v2 histogram_v2_grid_stride the grid walks the samples together
#include "lab01_global_atomics.cuh"

namespace lab01 {
namespace {

// v1: thread t owns samples [t*slice, (t+1)*slice).
__global__ void histogram_v1_slices_kernel(const int* d_samples, int n, int* d_bins,
                                           int samples_per_thread) {
  // TODO(Q2.2): find this thread's first sample, then count each sample of its slice into d_bins
  // with atomicAdd; the last slice may run past n, so stop there (about 5 lines).
}

// v2: each thread starts at its global index and steps by the number of threads in the grid.
__global__ void histogram_v2_grid_stride_kernel(const int* d_samples, int n, int* d_bins) {
  // TODO(Q2.5): a grid-stride loop over the samples, one atomicAdd per sample (about 4 lines).
}

}  // namespace

void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  // TODO(Q2.3): enough blocks for every sample to belong to some thread's slice (1 line).
  const int blocks = 1;
  histogram_v1_slices_kernel<<<blocks, launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                   launch.samples_per_thread);
}

void histogram_v2_grid_stride(const int* d_samples, int n, int* d_bins, GridStrideLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v2_grid_stride_kernel<<<launch.blocks, launch.threads_per_block>>>(d_samples, n, d_bins);
}

// TODO(Q2.4): after running the sweep, return the shapes that were fastest on your GPU.
SliceLaunch fastest_slice_launch() { return {256, 64}; }
GridStrideLaunch fastest_grid_stride_launch(int sm_count) { return {8 * sm_count, 256}; }

}  // namespace lab01
