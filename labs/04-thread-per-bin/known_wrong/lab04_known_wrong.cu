// Lab 04 kernels that are wrong on purpose: the grader must catch each one (meson suite
// `selftest`). Built once per defect, chosen with -DKNOWN_WRONG=N:
//   1 empty                 the kernels count nothing
//   2 missing_barrier       no __syncthreads() between copying the chunk and scanning it
//   3 off_by_one_tail       the grid is rounded down, so the last partial chunk is never counted
//   4 atomics_in_loop       right answers, wrong technique: v1 counts with a shared atomicAdd and
//                           v2 with a global one inside the scan (caught by the technique check)
//   5 banks2_bins_overlap   v3's second bin is t + 511: bin 511 is counted twice, bin 1023 never
//   6 accepts_any_block     no shape check: a block too small for the bins silently miscounts
// v1 and v2 share one body here, v3 and v4 another: the defects are in the shared parts.
#include "lab04_thread_per_bin.cuh"

namespace lab04 {
namespace {

constexpr int kWrongCase = KNOWN_WRONG;

struct Chunk {
  long long first;
  int count;
};

__device__ Chunk this_blocks_chunk(int n, int samples_per_block) {
  const long long first = static_cast<long long>(blockIdx.x) * samples_per_block;
  const long long left = n - first;
  return {first, static_cast<int>(left < samples_per_block ? left : samples_per_block)};
}

__device__ void copy_chunk(const int* d_samples, Chunk chunk, int* s_chunk) {
  for (int i = threadIdx.x; i < chunk.count; i += blockDim.x) s_chunk[i] = d_samples[chunk.first + i];
  if (kWrongCase != 2) __syncthreads();
}

__global__ void histogram_v1_inverse_kernel(const int* d_samples, int n, int* d_bins,
                                            int samples_per_block) {
  extern __shared__ int s_chunk[];
  __shared__ int s_counts[kNumBins];
  if constexpr (kWrongCase == 1) return;
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  const int bin = threadIdx.x;
  s_counts[bin] = 0;
  copy_chunk(d_samples, chunk, s_chunk);
  for (int i = 0; i < chunk.count; ++i) {
    if (s_chunk[i] == bin) {
      if (kWrongCase == 4) {
        atomicAdd(&s_counts[bin], 1);
      } else {
        ++s_counts[bin];
      }
    }
  }
  atomicAdd(&d_bins[bin], s_counts[bin]);
}

__global__ void histogram_v2_banks_kernel(const int* d_samples, int n, int* d_bins,
                                          int samples_per_block) {
  extern __shared__ int s_chunk[];
  if constexpr (kWrongCase == 1) return;
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  copy_chunk(d_samples, chunk, s_chunk);
  const int bin = threadIdx.x;
  int count = 0;
  for (int i = 0; i < chunk.count; ++i) {
    if (kWrongCase == 4) {
      if (s_chunk[i] == bin) atomicAdd(&d_bins[bin], 1);
    } else {
      count += (s_chunk[i] == bin) ? 1 : 0;
    }
  }
  if (kWrongCase != 4) atomicAdd(&d_bins[bin], count);
}

// v3 and v4: bins t + k * (kNumBins / kBins), k < kBins.
template <int kBins>
__device__ void count_several_bins(const int* d_samples, int n, int* d_bins, int samples_per_block,
                                   int* s_chunk) {
  if constexpr (kWrongCase == 1) return;
  constexpr int kStride = kNumBins / kBins - (kWrongCase == 5 && kBins == 2 ? 1 : 0);
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  copy_chunk(d_samples, chunk, s_chunk);
  int counts[kBins] = {};
  for (int i = 0; i < chunk.count; ++i) {
    const int value = s_chunk[i];
#pragma unroll
    for (int k = 0; k < kBins; ++k) counts[k] += (value ^ (int(threadIdx.x) + k * kStride)) ? 0 : 1;
  }
#pragma unroll
  for (int k = 0; k < kBins; ++k) atomicAdd(&d_bins[threadIdx.x + k * kStride], counts[k]);
}

__global__ void histogram_v3_banks2_kernel(const int* d_samples, int n, int* d_bins,
                                           int samples_per_block) {
  extern __shared__ int s_chunk[];
  count_several_bins<2>(d_samples, n, d_bins, samples_per_block, s_chunk);
}

__global__ void histogram_v4_banks4_kernel(const int* d_samples, int n, int* d_bins,
                                           int samples_per_block) {
  extern __shared__ int s_chunk[];
  count_several_bins<4>(d_samples, n, d_bins, samples_per_block, s_chunk);
}

void check_launch_shape(const char* kernel, ChunkLaunch launch, int bins_per_thread) {
  const int needed = threads_to_cover_the_bins(bins_per_thread);
  // Defect 6 still refuses blocks over 1024 threads, which the GPU itself would refuse: its
  // lesson is the block that launches fine and miscounts.
  const bool bad_block = kWrongCase == 6 ? launch.threads_per_block > 1024
                                      : launch.threads_per_block != needed;
  if (bad_block) {
    throw LaunchShapeError(std::string(kernel) + " needs " + std::to_string(needed) +
                           " threads per block");
  }
  if (launch.samples_per_block < 1 || launch.samples_per_block > kMaxSamplesPerBlock) {
    throw LaunchShapeError(std::string(kernel) + ": chunk of " +
                           std::to_string(launch.samples_per_block) + " samples");
  }
}

template <class Kernel>
void launch(const char* name, Kernel kernel, int bins_per_thread, const int* d_samples, int n,
            int* d_bins, ChunkLaunch shape) {
  check_launch_shape(name, shape, bins_per_thread);
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  const long long per_block = shape.samples_per_block;
  long long blocks = kWrongCase == 3 ? n / per_block : (n + per_block - 1) / per_block;
  if (blocks == 0) blocks = 1;  // keeps the tail defect a wrong answer, not a refused launch
  kernel<<<static_cast<int>(blocks), shape.threads_per_block, per_block * sizeof(int)>>>(
      d_samples, n, d_bins, shape.samples_per_block);
}

}  // namespace

void histogram_v1_inverse(const int* d_samples, int n, int* d_bins, ChunkLaunch shape) {
  launch("histogram_v1_inverse", histogram_v1_inverse_kernel, kBinsPerThreadInverse, d_samples, n,
         d_bins, shape);
}
void histogram_v2_banks(const int* d_samples, int n, int* d_bins, ChunkLaunch shape) {
  launch("histogram_v2_banks", histogram_v2_banks_kernel, kBinsPerThreadBanks, d_samples, n, d_bins,
         shape);
}
void histogram_v3_banks2(const int* d_samples, int n, int* d_bins, ChunkLaunch shape) {
  launch("histogram_v3_banks2", histogram_v3_banks2_kernel, kBinsPerThreadBanks2, d_samples, n,
         d_bins, shape);
}
void histogram_v4_banks4(const int* d_samples, int n, int* d_bins, ChunkLaunch shape) {
  launch("histogram_v4_banks4", histogram_v4_banks4_kernel, kBinsPerThreadBanks4, d_samples, n,
         d_bins, shape);
}

int fastest_samples_per_block() { return 1024; }

}  // namespace lab04
