// Lab 02 kernels that are wrong on purpose: the grader must catch each one (meson suites
// `selftest` and `technique`). Built once per defect, chosen with -DKNOWN_WRONG=N:
//   1 empty                v2 and v3 count nothing
//   2 tail_dropped         v3 forgets the last slice % 4 samples of each slice
//   3 grid_rounded_down    v2's grid is rounded down, so the samples past the last full block are lost
//   4 not_unrolled         v2 under #pragma unroll 1: right answers, no unrolling (technique check)
//   5 loads_not_in_flight  v3 written as load-atomic pairs: right answers, but each load waits
//                          behind the previous atomic (technique check)
//   6 mapped_host          v3's kernel only copies the samples into mapped host memory
//                          (cudaHostAlloc); the host counts them and copies the bins back
//   7 decoy_same_name      v2 launches a kernel of the checked kernel's name at global scope, not
//                          unrolled, while the lab's unrolled one is never launched (technique
//                          check: one reading of a kernel's name reads both)
#include "lab02_unrolling_ilp.cuh"

#include <vector>

// Defect 7: a kernel of the lab kernel's own name, outside namespace lab02.
__global__ void histogram_v2_pragma_unroll_kernel(const int* d_samples, int n, int* d_bins, int samples_per_thread) {
  const long long begin = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * samples_per_thread;
  const long long end = begin + samples_per_thread < n ? begin + samples_per_thread : n;
#pragma unroll 1
  for (long long i = begin; i < end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
}

namespace lab02 {
namespace {

constexpr int kWrongCase = KNOWN_WRONG;

struct Slice {
  long long begin, end;
};
__device__ Slice my_slice(int n, int samples_per_thread) {
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long begin = thread * samples_per_thread;
  return {begin, begin + samples_per_thread < n ? begin + samples_per_thread : n};
}

__global__ void histogram_v1_slices_kernel(const int* d_samples, int n, int* d_bins,
                                           int samples_per_thread) {
  const Slice s = my_slice(n, samples_per_thread);
  for (long long i = s.begin; i < s.end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
}

__global__ void histogram_v2_pragma_unroll_kernel(const int* d_samples, int n, int* d_bins,
                                                  int samples_per_thread) {
  if constexpr (kWrongCase == 1) return;
  const Slice s = my_slice(n, samples_per_thread);
  if constexpr (kWrongCase == 4) {
#pragma unroll 1
    for (long long i = s.begin; i < s.end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
  } else {
#pragma unroll kUnrollFactor
    for (long long i = s.begin; i < s.end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

__global__ void histogram_v3_manual_ilp_kernel(const int* d_samples, int n, int* d_bins,
                                               int samples_per_thread) {
  if constexpr (kWrongCase == 1) return;
  const Slice s = my_slice(n, samples_per_thread);
  long long i = s.begin;
  for (; i + kIlpWays <= s.end; i += kIlpWays) {
    if constexpr (kWrongCase == 5) {
      atomicAdd(&d_bins[d_samples[i]], 1);
      atomicAdd(&d_bins[d_samples[i + 1]], 1);
      atomicAdd(&d_bins[d_samples[i + 2]], 1);
      atomicAdd(&d_bins[d_samples[i + 3]], 1);
    } else {
      const int a = d_samples[i], b = d_samples[i + 1], c = d_samples[i + 2], d = d_samples[i + 3];
      atomicAdd(&d_bins[a], 1);
      atomicAdd(&d_bins[b], 1);
      atomicAdd(&d_bins[c], 1);
      atomicAdd(&d_bins[d], 1);
    }
  }
  if constexpr (kWrongCase != 2) {
    for (; i < s.end; ++i) atomicAdd(&d_bins[d_samples[i]], 1);
  }
}

__global__ void copy_to_mapped_kernel(const int* d_samples, int n, int* h_view) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    h_view[i] = d_samples[i];
  }
}

void count_through_mapped_memory(const int* d_samples, int n, int* d_bins) {
  int* h_mapped = nullptr;
  int* d_view = nullptr;
  cudaHostAlloc(&h_mapped, (n + 1) * sizeof(int), cudaHostAllocMapped);
  cudaHostGetDevicePointer(&d_view, h_mapped, 0);
  copy_to_mapped_kernel<<<64, 256>>>(d_samples, n, d_view);
  cudaDeviceSynchronize();
  std::vector<int> bins(kNumBins, 0);
  for (int i = 0; i < n; ++i) ++bins[h_mapped[i]];
  cudaMemcpy(d_bins, bins.data(), kNumBins * sizeof(int), cudaMemcpyHostToDevice);
  cudaFreeHost(h_mapped);
}

int blocks_for(int n, SliceLaunch launch, bool round_down) {
  const long long per_block = static_cast<long long>(launch.threads_per_block) * launch.samples_per_thread;
  const long long blocks = round_down ? n / per_block : (n + per_block - 1) / per_block;
  return blocks > 0 ? static_cast<int>(blocks) : 1;  // keeps the defect a wrong answer, not a refused launch
}

}  // namespace

void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v1_slices_kernel<<<blocks_for(n, launch, false), launch.threads_per_block>>>(
      d_samples, n, d_bins, launch.samples_per_thread);
}

void histogram_v2_pragma_unroll(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  if (kWrongCase == 7) {  // not `if constexpr`: the lab's kernel stays in the machine code, unlaunched
    ::histogram_v2_pragma_unroll_kernel<<<blocks_for(n, launch, false), launch.threads_per_block>>>(
        d_samples, n, d_bins, launch.samples_per_thread);
    return;
  }
  histogram_v2_pragma_unroll_kernel<<<blocks_for(n, launch, kWrongCase == 3), launch.threads_per_block>>>(
      d_samples, n, d_bins, launch.samples_per_thread);
}

void histogram_v3_manual_ilp(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  if constexpr (kWrongCase == 6) {
    count_through_mapped_memory(d_samples, n, d_bins);
    return;
  }
  histogram_v3_manual_ilp_kernel<<<blocks_for(n, launch, false), launch.threads_per_block>>>(
      d_samples, n, d_bins, launch.samples_per_thread);
}

SliceLaunch fastest_slice_launch() { return {256, 64}; }

}  // namespace lab02
