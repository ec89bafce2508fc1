// Lab 03 - shared-memory privatization. Handout: handouts/03-shared-privatization.md.
// Reference solution: diff it with starter/lab03_shared_privatization.cu for the answer key.
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

// Q2.1's zeroing (any blockDim.x) and its barrier; v1, v2, v4 and v5 share it.
template <class Bin>
__device__ void zero_private(Bin* s_bins, int count) {
  for (int b = threadIdx.x; b < count; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
}

// Q2.3's barrier and merge; skipping empty bins saves most of the merge on skewed data.
template <class Bin>
__device__ void merge_private(const Bin* s_bins, Bin* d_bins, int count) {
  __syncthreads();
  for (int b = threadIdx.x; b < count; b += blockDim.x) {
    if (s_bins[b] != 0) atomicAdd(&d_bins[b], s_bins[b]);
  }
}

// v1: a block-local histogram in shared memory, merged into d_bins at the end.
__global__ void histogram_v1_shared_slices_kernel(const int* d_samples, int n, int* d_bins,
                                                  int samples_per_thread) {
  __shared__ int s_bins[kNumBins];
  // TODO(Q2.1): zero s_bins with a loop that works for any blockDim.x, even one smaller than
  // kNumBins; then a barrier, so no thread counts into a bin that is not zeroed yet (3 lines).
  zero_private(s_bins, kNumBins);

  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long begin = thread * samples_per_thread;
  const long long end = begin + samples_per_thread < n ? begin + samples_per_thread : n;
  // TODO(Q2.2): count samples [begin, end) into s_bins with atomicAdd (2 lines).
  for (long long i = begin; i < end; ++i) atomicAdd(&s_bins[d_samples[i]], 1);

  // TODO(Q2.3): wait for every thread of the block, then add each non-empty private bin into
  // d_bins with one atomicAdd, again for any blockDim.x (4 lines).
  merge_private(s_bins, d_bins, kNumBins);
}

// One int4 or uint4 of samples into the private bins.
template <class Bin, class Vector>
__device__ void count_four(Bin* s_bins, const Vector& v) {
  atomicAdd(&s_bins[v.x], Bin{1});
  atomicAdd(&s_bins[v.y], Bin{1});
  atomicAdd(&s_bins[v.z], Bin{1});
  atomicAdd(&s_bins[v.w], Bin{1});
}

// The grid-stride loop of v2 and v4 over 16-byte vectors of four samples, two vectors per trip,
// both loaded before the first atomic: 32 bytes in flight per thread instead of 16. Returns the
// index of the first sample it left to the scalar tail (all of them if d_samples is not 16-byte
// aligned).
template <class Vector, class Sample, class Bin>
__device__ int count_vectors(const Sample* d_samples, int n, Bin* s_bins) {
  if (reinterpret_cast<std::uintptr_t>(d_samples) % alignof(Vector) != 0) return 0;
  const Vector* d_vectors = reinterpret_cast<const Vector*>(d_samples);
  const int vectors = n / 4;
  const int stride = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + stride < vectors; i += 2 * stride) {
    const Vector first = d_vectors[i];
    const Vector second = d_vectors[i + stride];
    count_four(s_bins, first);
    count_four(s_bins, second);
  }
  if (i < vectors) count_four(s_bins, d_vectors[i]);
  return 4 * vectors;
}

// v2: v1 with a grid-stride loop instead of slices.
__global__ void histogram_v2_shared_grid_stride_kernel(const int* d_samples, int n, int* d_bins) {
  __shared__ int s_bins[kNumBins];
  // TODO(Q2.5): zero, barrier, a grid-stride loop counting into s_bins, barrier, merge
  // (about 10 lines). Stretch (Q8): 60 % of the read bandwidth, the tail kept exact.
  // The stretch form: count_vectors, then the plain loop over the samples it left. The
  // measured shares of the read bandwidth are in handouts/03-shared-privatization-answers.md.
  zero_private(s_bins, kNumBins);
  const int stride = gridDim.x * blockDim.x;
  const int tail_begin = count_vectors<int4>(d_samples, n, s_bins);
  for (int i = tail_begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&s_bins[d_samples[i]], 1);
  }
  merge_private(s_bins, d_bins, kNumBins);
}

// v3: blockDim.x == kByteBins: thread t zeroes and merges bin t.
__global__ void __launch_bounds__(kByteBins)
    histogram_v3_bytes_kernel(const unsigned char* d_bytes, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kByteBins];
  // TODO(Q3.1): zero your bin, barrier, grid-stride loop over the bytes, barrier, merge your bin
  // (about 8 lines, no loop for the zeroing or the merge).
  s_bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&s_bins[d_bytes[i]], 1u);
  }
  __syncthreads();
  if (s_bins[threadIdx.x] != 0) atomicAdd(&d_bins[threadIdx.x], s_bins[threadIdx.x]);
}

// v4: 4096 bins of 12-bit values.
__global__ void histogram_v4_wide_kernel(const unsigned int* d_values, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kWideBins];
  // TODO(Q4.1): v2 over kWideBins bins: its plain form (about 10 lines), or with its 16-byte loads
  // and their scalar tail (about 20 lines).
  // v2's stretch form, loads included (16 KiB of shared memory per block).
  zero_private(s_bins, kWideBins);
  const int stride = gridDim.x * blockDim.x;
  const int tail_begin = count_vectors<uint4>(d_values, n, s_bins);
  for (int i = tail_begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&s_bins[d_values[i]], 1u);
  }
  merge_private(s_bins, d_bins, kWideBins);
}

// v4, second kernel: one thread per bin.
constexpr int kSaturateThreads = 256;

__global__ void __launch_bounds__(kSaturateThreads)
    saturate_v4_kernel(unsigned int* d_bins, int num_bins, unsigned int cap) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  // TODO(Q4.2): if bin b exists and holds more than cap, set it to cap (2 lines).
  // One read per bin, and a write only when it is over the cap.
  if (b < num_bins && d_bins[b] > cap) d_bins[b] = cap;
}

// v5: 'a'..'z' in groups of kLettersPerBin; every other byte is ignored.
__global__ void histogram_v5_letters_kernel(const unsigned char* d_text, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kLetterBins];
  // TODO(Q5.1): zero (blocks may have fewer than 7 threads), barrier, a grid-stride loop counting
  // the letters into s_bins, barrier, merge (about 12 lines).
  zero_private(s_bins, kLetterBins);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    // A byte below 'a' wraps to a huge unsigned position: one comparison rejects both sides.
    const unsigned int position = static_cast<unsigned int>(d_text[i]) - 'a';
    if (position < 26) atomicAdd(&s_bins[position / kLettersPerBin], 1u);
  }
  merge_private(s_bins, d_bins, kLetterBins);
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
// lab03-sweep on an H100 and an H200 (figures in handouts/03-shared-privatization-answers.md):
// short slices win; the grid-stride kernels want few, large blocks, since every block zeroes and
// merges its private bins once. Where an SM holds only 1536 threads, half this grid is a second wave.
SliceLaunch fastest_slice_launch() { return {256, 16}; }
GridStrideLaunch fastest_grid_stride_launch(int sm_count) { return {2 * sm_count, 1024}; }

}  // namespace lab03
