// Lab 01 kernels that are wrong on purpose: the grader must catch each one (meson suite
// `selftest`). Built once per defect, chosen with -DKNOWN_WRONG=N:
//   1 empty            the kernels count nothing
//   2 off_by_one_tail  v1's grid is rounded down, so the last partial block of samples is lost
//   3 racy             a plain read-modify-write instead of atomicAdd (lost updates on a GPU)
//   4 out_of_bounds    v2 counts value v into bin v+1, writing one past the last bin
//   5 overwrites_timed_input  a call on a speed-test-sized input that starts within a millisecond
//                      of the previous one's return (a timed round's calls run back to back) fills
//                      its input with -1, zeroes its bins and counts nothing
//   6 transposed_index v2 starts at threadIdx.x * gridDim.x + blockIdx.x: every sample is counted
//                      once, right, but a warp's 32 loads land 32 sectors apart (the technique
//                      check reads what ran: its loads take 32 sectors a request, not 4)
//  20 plus_plus_global v2 counts with d_bins[d_samples[i]]++, a plain read-modify-write of a
//                      global bin: a correct grid-stride loop that loses counts on a GPU (the CPU
//                      backend's race detector names the line; races from 20 on)
#include "lab01_global_atomics.cuh"

#include <chrono>

namespace lab01 {
namespace {

constexpr int kWrongCase = KNOWN_WRONG;

__device__ void count(int* d_bins, int value) {
  if (kWrongCase == 3) {
    d_bins[value] = d_bins[value] + 1;
  } else {
    atomicAdd(&d_bins[value + (kWrongCase == 4 ? 1 : 0)], 1);
  }
}

__global__ void slices_kernel(const int* d_samples, int n, int* d_bins, int samples_per_thread) {
  if constexpr (kWrongCase != 1) {
    const long long begin =
        (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * samples_per_thread;
    for (long long i = begin; i < begin + samples_per_thread && i < n; ++i) count(d_bins, d_samples[i]);
  }
}

__global__ void histogram_v2_grid_stride_kernel(const int* d_samples, int n, int* d_bins) {
  if constexpr (kWrongCase != 1) {
    const int first = kWrongCase == 6 ? threadIdx.x * gridDim.x + blockIdx.x : blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = first; i < n; i += gridDim.x * blockDim.x) {
      if (kWrongCase == 20) {
        d_bins[d_samples[i]]++;
      } else {
        count(d_bins, d_samples[i]);
      }
    }
  }
}

std::chrono::steady_clock::time_point last_return{};

// Defect 5: true (and the work skipped) for a call of a timed round.
bool wipe_if_timed(const int* d_samples, int n, int* d_bins) {
  const bool timed = kWrongCase == 5 && n >= (1 << 24) &&
                     std::chrono::steady_clock::now() - last_return < std::chrono::milliseconds(1);
  if (!timed) return false;
  cudaMemsetAsync(const_cast<int*>(d_samples), 0xff, static_cast<std::size_t>(n) * sizeof(int));
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  slices_kernel<<<1, 32>>>(d_samples, 0, d_bins, 1);  // a kernel ran, counting nothing
  return true;
}

struct NoteReturn {  // when the call returns: the next one within a millisecond is a timed one
  ~NoteReturn() { last_return = std::chrono::steady_clock::now(); }
};

}  // namespace

void histogram_v1_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch) {
  const NoteReturn note;
  if (wipe_if_timed(d_samples, n, d_bins)) return;
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  const long long per_block = static_cast<long long>(launch.threads_per_block) * launch.samples_per_thread;
  long long blocks = kWrongCase == 2 ? n / per_block : (n + per_block - 1) / per_block;
  if (blocks == 0) blocks = 1;  // keeps the tail defect a wrong answer, not a refused launch
  slices_kernel<<<static_cast<int>(blocks), launch.threads_per_block>>>(d_samples, n, d_bins,
                                                                        launch.samples_per_thread);
}

void histogram_v2_grid_stride(const int* d_samples, int n, int* d_bins, GridStrideLaunch launch) {
  const NoteReturn note;
  if (wipe_if_timed(d_samples, n, d_bins)) return;
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v2_grid_stride_kernel<<<launch.blocks, launch.threads_per_block>>>(d_samples, n, d_bins);
}

SliceLaunch fastest_slice_launch() { return {256, 64}; }
GridStrideLaunch fastest_grid_stride_launch(int sm_count) { return {8 * sm_count, 256}; }

}  // namespace lab01
