// Lab 03 kernels that are wrong on purpose: the grader must catch each one (meson suites
// `selftest` and `technique`). Built once per defect, chosen with -DKNOWN_WRONG=N:
//   1 empty                   the kernels count nothing and saturate_v4 caps nothing
//   2 merge_only_own_bin      thread t merges only bin t: bins past blockDim.x are lost
//   3 zero_only_own_bin       thread t zeroes only bin t: bins past blockDim.x keep stale shared memory
//   4 missing_merge_barrier   the kernels merge without waiting for the other warps to finish
//   5 letters_bound_inclusive v5 accepts position 26, so '{' counts as a letter
//   6 saturate_below_cap      saturate_v4 caps at cap - 1
//   7 global_atomics          every kernel counts with global atomics: right answers, no
//                             privatization (technique checks)
//   8 missing_zero_barrier    no barrier after the zeroing, as in the course's code: a thread may
//                             count into a bin another thread zeroes afterwards
//   9 runner_side_atomics     global atomics only where GRADER_RUNNER_SIDE is defined (the graded
//                             runner's build), shared ones in any other compile of the file: right
//                             answers; the technique checks must read the runner's own code
//  10 dead_privatized_loop    v1 holds a privatized loop behind a condition that never holds (a
//                             negative slice); a loop of global atomics does the counting: right
//                             answers, and the machine code holds the lesson's loop (technique
//                             checks: what ran)
//  11 idle_checked_kernel     v2 launches its checked kernel on no samples, and another kernel
//                             counts with global atomics: right answers (technique checks: what ran)
//  20 plain_shared_increment  v1 counts with s_bins[d_samples[i]]++, a plain read-modify-write of a
//                             shared bin: lost counts on a GPU, every test passed on the CPU
//                             backend's schedule (its race detector names the line, Q2.2; races
//                             from 20 on)
#include "lab03_shared_privatization.cuh"

namespace lab03 {
namespace {

constexpr int kWrongCase = KNOWN_WRONG;

template <class Bin>
__device__ void zero_private(Bin* s_bins, int count) {
  if (kWrongCase == 3) {
    if (static_cast<int>(threadIdx.x) < count) s_bins[threadIdx.x] = 0;
  } else {
    for (int b = threadIdx.x; b < count; b += blockDim.x) s_bins[b] = 0;
  }
  if (kWrongCase != 8) __syncthreads();
}

template <class Bin>
__device__ void merge_private(const Bin* s_bins, Bin* d_bins, int count) {
  if (kWrongCase != 4) __syncthreads();
  if (kWrongCase == 2) {
    if (static_cast<int>(threadIdx.x) < count) atomicAdd(&d_bins[threadIdx.x], s_bins[threadIdx.x]);
    return;
  }
  for (int b = threadIdx.x; b < count; b += blockDim.x) {
    if (s_bins[b] != 0) atomicAdd(&d_bins[b], s_bins[b]);
  }
}

// Where a sample is counted: the private bins, or (defect 7, and defect 9 in the runner's build)
// straight into the global ones.
#if defined(GRADER_RUNNER_SIDE)
constexpr bool kRunnerSide = true;
#else
constexpr bool kRunnerSide = false;
#endif

template <class Bin>
__device__ void count(Bin* s_bins, Bin* d_bins, int bin) {
  if (kWrongCase == 1) return;
  if (kWrongCase == 7 || (kWrongCase == 9 && kRunnerSide)) {
    atomicAdd(&d_bins[bin], Bin{1});
  } else {
    atomicAdd(&s_bins[bin], Bin{1});
  }
}

__global__ void histogram_v1_shared_slices_kernel(const int* d_samples, int n, int* d_bins,
                                                  int samples_per_thread) {
  __shared__ int s_bins[kNumBins];
  zero_private(s_bins, kNumBins);
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long begin = thread * samples_per_thread;
  const long long end = begin + samples_per_thread < n ? begin + samples_per_thread : n;
  if (kWrongCase == 10 && samples_per_thread >= 0) {  // always: the privatized loop below never runs
    for (long long i = begin; i < end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
    return;
  }
  for (long long i = begin; i < end; ++i) {
    if (kWrongCase == 20) {
      s_bins[d_samples[i]]++;
    } else {
      count(s_bins, d_bins, d_samples[i]);
    }
  }
  merge_private(s_bins, d_bins, kNumBins);
}

// Defect 11: the work, done by a kernel the technique check does not read.
__global__ void count_everything_kernel(const int* d_samples, int n, int* d_bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

__global__ void histogram_v2_shared_grid_stride_kernel(const int* d_samples, int n, int* d_bins) {
  __shared__ int s_bins[kNumBins];
  zero_private(s_bins, kNumBins);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    count(s_bins, d_bins, d_samples[i]);
  }
  merge_private(s_bins, d_bins, kNumBins);
}

__global__ void histogram_v3_bytes_kernel(const unsigned char* d_bytes, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kByteBins];
  zero_private(s_bins, kByteBins);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    count(s_bins, d_bins, d_bytes[i]);
  }
  merge_private(s_bins, d_bins, kByteBins);
}

__global__ void histogram_v4_wide_kernel(const unsigned int* d_values, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kWideBins];
  zero_private(s_bins, kWideBins);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    count(s_bins, d_bins, static_cast<int>(d_values[i]));
  }
  merge_private(s_bins, d_bins, kWideBins);
}

__global__ void saturate_v4_kernel(unsigned int* d_bins, int num_bins, unsigned int cap) {
  if (kWrongCase == 1) return;
  const unsigned int limit = kWrongCase == 6 ? cap - 1 : cap;
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < num_bins && d_bins[b] > limit) d_bins[b] = limit;
}

__global__ void histogram_v5_letters_kernel(const unsigned char* d_text, int n, unsigned int* d_bins) {
  __shared__ unsigned int s_bins[kLetterBins];
  zero_private(s_bins, kLetterBins);
  const unsigned int last = kWrongCase == 5 ? 26 : 25;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned int position = static_cast<unsigned int>(d_text[i]) - 'a';
    if (position <= last) count(s_bins, d_bins, static_cast<int>(position / kLettersPerBin));
  }
  merge_private(s_bins, d_bins, kLetterBins);
}

constexpr int kSaturateThreads = 256;

}  // namespace

void histogram_v1_shared_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  const long long per_block = static_cast<long long>(launch.threads_per_block) * launch.samples_per_thread;
  const int blocks = static_cast<int>((n + per_block - 1) / per_block);
  histogram_v1_shared_slices_kernel<<<blocks, launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                          launch.samples_per_thread);
}

void histogram_v2_shared_grid_stride(const int* d_samples, int n, int* d_bins, GridStrideLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  if (kWrongCase == 11) {  // the checked kernel runs, on no samples; another one counts them
    histogram_v2_shared_grid_stride_kernel<<<launch.blocks, launch.threads_per_block>>>(d_samples, 0, d_bins);
    count_everything_kernel<<<launch.blocks, launch.threads_per_block>>>(d_samples, n, d_bins);
    return;
  }
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
  saturate_v4_kernel<<<(num_bins + kSaturateThreads - 1) / kSaturateThreads, kSaturateThreads>>>(
      d_bins, num_bins, cap);
}

void histogram_v5_letters(const unsigned char* d_text, int n, unsigned int* d_bins, GridStrideLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kLetterBins * sizeof(unsigned int));
  if (n == 0) return;
  histogram_v5_letters_kernel<<<launch.blocks, launch.threads_per_block>>>(d_text, n, d_bins);
}

SliceLaunch fastest_slice_launch() { return {256, 64}; }
GridStrideLaunch fastest_grid_stride_launch(int sm_count) { return {8 * sm_count, 256}; }

}  // namespace lab03
