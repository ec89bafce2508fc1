// Lab 03 - shared-memory privatization: reference solution.
// Handout: handouts/03-shared-privatization.md.
//
//   v1 histogram_v1_shared_slices       private 1024 bins per block; each thread counts a slice
//   v2 histogram_v2_shared_grid_stride  strided loop, two 16-byte loads per trip (the stretch tier)
//   v3 histogram_v3_bytes               256 byte bins, one thread per bin to zero and to merge
//   v4 histogram_v4_wide, saturate_v4   4096 bins (v2's loads), then a second kernel caps every bin
//   v5 histogram_v5_letters             7 bins of letters; every other byte is skipped
#include <cstdint>

#include "lab03_shared_privatization.cuh"

namespace lab03 {
namespace {

// Zero bins [0, count) of a private histogram with however many threads the block has, then wait:
// no thread may count into a bin another thread has not zeroed yet.
template <class Bin>
__device__ void zero_private(Bin* s_bins, int count) {
  for (int b = threadIdx.x; b < count; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
}

// Wait for every thread's counts, then add the private bins into the global ones; empty bins are
// skipped, which saves most of the merge on skewed data.
template <class Bin>
__device__ void merge_private(const Bin* s_bins, Bin* d_bins, int count) {
  __syncthreads();
  for (int b = threadIdx.x; b < count; b += blockDim.x) {
    if (s_bins[b] != 0) atomicAdd(&d_bins[b], s_bins[b]);
  }
}

// v1: the course's block-local histogram, with the barrier it lacked after the zeroing, and a
// zeroing loop that works when the block has fewer threads than bins.
__global__ void histogram_v1_shared_slices_kernel(const int* d_samples, int n, int* d_bins,
                                                  int samples_per_thread) {
  __shared__ int s_bins[kNumBins];
  zero_private(s_bins, kNumBins);
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long begin = thread * samples_per_thread;
  const long long end = begin + samples_per_thread < n ? begin + samples_per_thread : n;
  for (long long i = begin; i < end; ++i) atomicAdd(&s_bins[d_samples[i]], 1);
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

// v2: the strided loop of lab 01 over one private histogram, the samples read 16 bytes at a time,
// two loads per trip (count_vectors). On an H200, 1024 bins, uniform samples: one 4-byte load per
// trip 59 % of the read bandwidth (8 blocks of 256 per SM); one 16-byte load 89 % (4 of 512) and
// 95 % (2 of 1024); two 16-byte loads 96 % (2 of 1024). Several private copies per block (one per
// warp group) were measured too: no gain, on any data.
__global__ void histogram_v2_shared_grid_stride_kernel(const int* d_samples, int n, int* d_bins) {
  __shared__ int s_bins[kNumBins];
  zero_private(s_bins, kNumBins);
  const int stride = gridDim.x * blockDim.x;
  const int tail_begin = count_vectors<int4>(d_samples, n, s_bins);
  for (int i = tail_begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&s_bins[d_samples[i]], 1);
  }
  merge_private(s_bins, d_bins, kNumBins);
}

// v3: blockDim.x == kByteBins, so thread t zeroes and merges bin t and needs no loop for either.
__global__ void __launch_bounds__(kByteBins)
    histogram_v3_bytes_kernel(const unsigned char* d_bytes, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kByteBins];
  s_bins[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&s_bins[d_bytes[i]], 1u);
  }
  __syncthreads();
  if (s_bins[threadIdx.x] != 0) atomicAdd(&d_bins[threadIdx.x], s_bins[threadIdx.x]);
}

// v4: v2, loads included, over 4096 bins (16 KiB of shared memory per block); with one 4-byte load
// per trip it kept too few bytes in flight and reached only about 60 % of the read bandwidth (H200).
__global__ void histogram_v4_wide_kernel(const unsigned int* d_values, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kWideBins];
  zero_private(s_bins, kWideBins);
  const int stride = gridDim.x * blockDim.x;
  const int tail_begin = count_vectors<uint4>(d_values, n, s_bins);
  for (int i = tail_begin + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&s_bins[d_values[i]], 1u);
  }
  merge_private(s_bins, d_bins, kWideBins);
}

// v4, second kernel: one thread per bin reads it once and writes it only when it is over the cap.
constexpr int kSaturateThreads = 256;

__global__ void __launch_bounds__(kSaturateThreads)
    saturate_v4_kernel(unsigned int* d_bins, int num_bins, unsigned int cap) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < num_bins && d_bins[b] > cap) d_bins[b] = cap;
}

// v5: a byte below 'a' wraps around to a huge unsigned position, so one comparison rejects both
// sides of 'a'..'z'.
__global__ void histogram_v5_letters_kernel(const unsigned char* d_text, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kLetterBins];
  zero_private(s_bins, kLetterBins);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
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

// Measured with lab03_sweep on an H200 and an H100: short slices won (16 samples: 0.114-0.117 ms,
// 32 to 128: 0.158-0.163 ms). The grid-stride kernels want few, large blocks: every block pays for
// zeroing and merging its private bins, so 2 blocks of 1024 threads per SM beat 4 of 512 and 8 of
// 256 (H200, 1024 bins, uniform: 96 %, 91 % and 80 % of the read bandwidth). Where an SM holds only
// 1536 threads, the second half of this grid runs as a second wave.
SliceLaunch fastest_slice_launch() { return {256, 16}; }
GridStrideLaunch fastest_grid_stride_launch(int sm_count) { return {2 * sm_count, 1024}; }

}  // namespace lab03
