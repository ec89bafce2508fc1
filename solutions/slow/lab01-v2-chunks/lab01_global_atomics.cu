// Lab 01 - global-memory atomics. Handout: handouts/01-global-atomics.md.
// Fill in the TODOs; `meson test -C build --suite lab01` grades this file.
// Reference solution: `diff starter/<this file> solutions/<this file>` is the answer key.
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
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long begin = thread * samples_per_thread;
  const long long end = begin + samples_per_thread < n ? begin + samples_per_thread : n;
  for (long long i = begin; i < end; ++i) {
    atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

// v2: each thread starts at its global index and steps by the number of threads in the grid.
__global__ void histogram_v2_grid_stride_kernel(const int* d_samples, int n, int* d_bins) {
  // TODO(Q2.5): a grid-stride loop over the samples, one atomicAdd per sample (about 4 lines).
  // Each step, a warp reads 32 neighbouring samples: one 128-byte transaction instead of the 32
  // scattered ones of v1, whose threads are a slice apart.
  // SLOW VARIANT: the loop strides by one thread's chunk, not by the grid: thread t counts the
  // ceil(n / threads) consecutive samples of chunk t, so neighbouring lanes read a chunk apart
  // and a warp's load touches up to 32 sectors instead of 4 (v1's sectioned reads again).
  const long long threads = static_cast<long long>(gridDim.x) * blockDim.x;
  const long long chunk = (n + threads - 1) / threads;
  const long long first = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * chunk;
  for (long long i = first; i < first + chunk && i < n; ++i) {
    atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

}  // namespace

void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  // TODO(Q2.3): enough blocks for every sample to belong to some thread's slice (1 line).
  const long long per_block = static_cast<long long>(launch.threads_per_block) * launch.samples_per_thread;
  const int blocks = static_cast<int>((n + per_block - 1) / per_block);  // round up: the tail gets a block
  histogram_v1_slices_kernel<<<blocks, launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                   launch.samples_per_thread);
}

void histogram_v2_grid_stride(const int* d_samples, int n, int* d_bins, GridStrideLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v2_grid_stride_kernel<<<launch.blocks, launch.threads_per_block>>>(d_samples, n, d_bins);
}

// TODO(Q2.4): after running the sweep, return the shapes that were fastest on your GPU.
// Measured with lab01_sweep on an H100: every shape of the handout's table lands within a few
// percent of the others, because the atomics, not the loads, set the pace.
SliceLaunch fastest_slice_launch() { return {256, 64}; }
GridStrideLaunch fastest_grid_stride_launch(int sm_count) { return {8 * sm_count, 256}; }

}  // namespace lab01
