// 1024 bins, one thread per bin: the story of lab 04 (handout 04). A block copies a chunk of
// samples into shared memory; each thread owns some bins and scans the whole chunk for them.
//   v1 inverse  1 bin per thread, counting in shared memory
//   v2 banks    the count in a register: a broadcast read, a compare, an add, no branch
//   v3 banks2   2 bins per thread: each broadcast read feeds two compares
//   v4 banks4   4 bins per thread: four compares per read, a quarter of the threads
// Figures: handouts/benchmark.md (the benchmark's runs); notes: grader/bench/NOTES.md.
#include <stdexcept>
#include <string>

#include "grader/bench/references/references.cuh"

namespace bench::reference {
namespace {

constexpr int kMaxSamplesPerBlock = 8192;  // 32 KiB of chunk: no opt-in needed

struct Chunk {
  long long first;
  int count;
};

__device__ Chunk this_blocks_chunk(int n, int samples_per_block) {
  const long long first = static_cast<long long>(blockIdx.x) * samples_per_block;
  const long long left = n - first;
  return {first, static_cast<int>(left < samples_per_block ? left : samples_per_block)};
}

// Neighbours read neighbours (coalesced), and sample i lands in bank i % 32 (no conflicts).
__device__ void copy_chunk_to_shared(const int* d_samples, Chunk chunk, int* s_chunk) {
  for (int i = threadIdx.x; i < chunk.count; i += blockDim.x) s_chunk[i] = d_samples[chunk.first + i];
}

// v1: thread t owns bin t and counts in shared memory (only thread t touches it: no atomic).
__global__ void __launch_bounds__(kBins1024)
    v1_inverse(const int* d_samples, int n, int* d_bins, int samples_per_block) {
  extern __shared__ int s_chunk[];
  __shared__ int s_counts[kBins1024];
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  const int bin = threadIdx.x;
  copy_chunk_to_shared(d_samples, chunk, s_chunk);
  s_counts[bin] = 0;
  __syncthreads();
  for (int i = 0; i < chunk.count; ++i) {
    if (s_chunk[i] == bin) ++s_counts[bin];
  }
  atomicAdd(&d_bins[bin], s_counts[bin]);
}

// v2: the count in a register; every lane reads the same word (a broadcast), compares, adds.
__global__ void __launch_bounds__(kBins1024)
    v2_banks(const int* d_samples, int n, int* d_bins, int samples_per_block) {
  extern __shared__ int s_chunk[];
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  copy_chunk_to_shared(d_samples, chunk, s_chunk);
  __syncthreads();
  const int bin = threadIdx.x;
  int count = 0;
  for (int i = 0; i < chunk.count; ++i) count += (s_chunk[i] == bin) ? 1 : 0;
  atomicAdd(&d_bins[bin], count);
}

// v3 and v4: kBins bins per thread, bin0 + k * (1024 / kBins); xor is zero exactly on a match.
template <int kBins>
__global__ void __launch_bounds__(kBins1024 / kBins)
    v34_banks(const int* d_samples, int n, int* d_bins, int samples_per_block) {
  constexpr int kBinStride = kBins1024 / kBins;
  extern __shared__ int s_chunk[];
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  copy_chunk_to_shared(d_samples, chunk, s_chunk);
  __syncthreads();
  const int bin0 = threadIdx.x;
  int counts[kBins] = {};
  for (int i = 0; i < chunk.count; ++i) {
    const int value = s_chunk[i];
#pragma unroll
    for (int k = 0; k < kBins; ++k) counts[k] += (value ^ (bin0 + k * kBinStride)) ? 0 : 1;
  }
#pragma unroll
  for (int k = 0; k < kBins; ++k) atomicAdd(&d_bins[bin0 + k * kBinStride], counts[k]);
}

// The shape a version needs: a block owns every bin, and the chunk fits in shared memory.
void check_shape(const char* kernel, ChunkLaunch launch, int bins_per_thread) {
  if (launch.threads_per_block != kBins1024 / bins_per_thread || launch.samples_per_block < 1 ||
      launch.samples_per_block > kMaxSamplesPerBlock) {
    throw std::invalid_argument(std::string(kernel) + " needs " +
                                std::to_string(kBins1024 / bins_per_thread) +
                                " threads per block and 1 to 8192 samples per block");
  }
}

template <class Kernel>
void launch_chunks(Kernel kernel, const char* name, int bins_per_thread, const int* d_samples, int n,
                   int* d_bins, ChunkLaunch launch) {
  check_shape(name, launch, bins_per_thread);
  cudaMemsetAsync(d_bins, 0, kBins1024 * sizeof(int));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  const int blocks = static_cast<int>((n + static_cast<long long>(launch.samples_per_block) - 1) /
                                      launch.samples_per_block);
  kernel<<<blocks, launch.threads_per_block, launch.samples_per_block * sizeof(int)>>>(
      d_samples, n, d_bins, launch.samples_per_block);
}

}  // namespace

void histogram_tpb_v1_inverse(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  launch_chunks(v1_inverse, "tpb v1", 1, d_samples, n, d_bins, launch);
}
void histogram_tpb_v2_banks(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  launch_chunks(v2_banks, "tpb v2", 1, d_samples, n, d_bins, launch);
}
void histogram_tpb_v3_banks2(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  launch_chunks(v34_banks<2>, "tpb v3", 2, d_samples, n, d_bins, launch);
}
void histogram_tpb_v4_banks4(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  launch_chunks(v34_banks<4>, "tpb v4", 4, d_samples, n, d_bins, launch);
}

ChunkLaunch tpb_launch(int bins_per_thread) { return {kBins1024 / bins_per_thread, 1024}; }

}  // namespace bench::reference
