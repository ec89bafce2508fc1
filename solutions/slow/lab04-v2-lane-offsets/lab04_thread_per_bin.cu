// Lab 04 - one thread per bin. Handout: handouts/04-thread-per-bin.md.
// Reference solution: diff it with starter/lab04_thread_per_bin.cu for the answer key.
// Fill in the TODOs; `meson test -C build --suite lab04` grades this file.
//
//   v1 histogram_v1_inverse  a thread per bin scans the block's chunk, counting in shared memory
//   v2 histogram_v2_banks    the count moves to a register: a broadcast read, a compare, an add
//   v3 histogram_v3_banks2   two bins per thread: each broadcast read feeds two compares
//   v4 histogram_v4_banks4   four bins per thread
#include "lab04_thread_per_bin.cuh"

namespace lab04 {
namespace {

// The samples [first, first + count) of one block: a whole chunk, or what is left of the input.
struct Chunk {
  long long first;
  int count;
};

__device__ Chunk this_blocks_chunk(int n, int samples_per_block) {
  const long long first = static_cast<long long>(blockIdx.x) * samples_per_block;
  const long long left = n - first;
  return {first, static_cast<int>(left < samples_per_block ? left : samples_per_block)};
}

// The block's threads copy the chunk together: s_chunk[i] = d_samples[chunk.first + i].
__device__ void copy_chunk_to_shared(const int* d_samples, Chunk chunk, int* s_chunk) {
  // TODO(Q1.1): a loop in which thread t copies samples t, t + blockDim.x, ... of the chunk,
  // stopping at chunk.count (about 3 lines).
  // Neighbours read neighbours, so each warp's loads coalesce; sample i lands in bank i % 32,
  // so the 32 stores of a warp never conflict.
  for (int i = threadIdx.x; i < chunk.count; i += blockDim.x) {
    s_chunk[i] = d_samples[chunk.first + i];
  }
}

// v1: thread t owns bin t; it scans every sample of the chunk and counts the ones equal to t.
__global__ void __launch_bounds__(threads_to_cover_the_bins(kBinsPerThreadInverse))
    histogram_v1_inverse_kernel(const int* d_samples, int n, int* d_bins,
                                int samples_per_block) {
  extern __shared__ int s_chunk[];  // samples_per_block ints, sized by the launch
  __shared__ int s_counts[kNumBins];
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  const int bin = threadIdx.x;
  copy_chunk_to_shared(d_samples, chunk, s_chunk);
  // TODO(Q1.1): zero s_counts[bin]; wait until the whole block has copied its samples; scan the
  // chunk, adding 1 to s_counts[bin] for each sample equal to bin; then add s_counts[bin] into
  // d_bins[bin] with one atomicAdd, since other blocks count into the same bin (about 6 lines).
  s_counts[bin] = 0;
  __syncthreads();
  for (int i = 0; i < chunk.count; ++i) {
    if (s_chunk[i] == bin) ++s_counts[bin];  // only thread `bin` touches s_counts[bin]: no atomic
  }
  atomicAdd(&d_bins[bin], s_counts[bin]);
}

// v2: as v1, but the count lives in a register and the compare is branch-free.
__global__ void __launch_bounds__(threads_to_cover_the_bins(kBinsPerThreadBanks))
    histogram_v2_banks_kernel(const int* d_samples, int n, int* d_bins,
                              int samples_per_block) {
  extern __shared__ int s_chunk[];
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  copy_chunk_to_shared(d_samples, chunk, s_chunk);
  __syncthreads();
  const int bin = threadIdx.x;
  // TODO(Q3.1): count the samples equal to bin in a register, adding (s_chunk[i] == bin) ? 1 : 0
  // with no `if`; then one atomicAdd into d_bins[bin] (about 5 lines).
  // The loop is a broadcast read (all 32 lanes read the same word), a compare and an add.
  int count = 0;
  // SLOW VARIANT: lane k starts its scan 32 * k samples on and wraps around the chunk. Every thread
  // still sees every sample once, but at each step the 32 lanes of a warp read 32 different words
  // of one bank (a 32-way bank conflict) where the reference's lanes read one word (a broadcast).
  constexpr int kLanes = 32;  // a warp
  const int start = kLanes * (threadIdx.x % kLanes);
  for (int i = 0; i < chunk.count; ++i) {
    count += (s_chunk[(start + i) % chunk.count] == bin) ? 1 : 0;
  }
  atomicAdd(&d_bins[bin], count);
}

// v3: each thread owns bins t and t + 512, with half the threads per block.
__global__ void __launch_bounds__(threads_to_cover_the_bins(kBinsPerThreadBanks2))
    histogram_v3_banks2_kernel(const int* d_samples, int n, int* d_bins,
                               int samples_per_block) {
  constexpr int kBinStride = kNumBins / kBinsPerThreadBanks2;
  extern __shared__ int s_chunk[];
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  copy_chunk_to_shared(d_samples, chunk, s_chunk);
  __syncthreads();
  const int bin0 = threadIdx.x;
  const int bin1 = bin0 + kBinStride;
  // TODO(Q4.1): read each sample once and compare it with both bins, the xor way:
  // count += (value ^ bin) ? 0 : 1; then one atomicAdd per bin (about 9 lines).
  // xor is zero exactly when the sample equals the bin.
  int count0 = 0, count1 = 0;
  for (int i = 0; i < chunk.count; ++i) {
    const int value = s_chunk[i];
    count0 += (value ^ bin0) ? 0 : 1;
    count1 += (value ^ bin1) ? 0 : 1;
  }
  atomicAdd(&d_bins[bin0], count0);
  atomicAdd(&d_bins[bin1], count1);
}

// v4: four bins per thread, t + k*256.
__global__ void __launch_bounds__(threads_to_cover_the_bins(kBinsPerThreadBanks4))
    histogram_v4_banks4_kernel(const int* d_samples, int n, int* d_bins,
                               int samples_per_block) {
  constexpr int kBins = kBinsPerThreadBanks4;
  constexpr int kBinStride = kNumBins / kBins;
  extern __shared__ int s_chunk[];
  const Chunk chunk = this_blocks_chunk(n, samples_per_block);
  copy_chunk_to_shared(d_samples, chunk, s_chunk);
  __syncthreads();
  const int bin0 = threadIdx.x;
  // TODO(Q4.1): as v3 with the bins bin0 + k * kBinStride, k = 0..3, their counts in an array
  // int counts[kBins] indexed in #pragma unroll loops so it stays in registers (about 8 lines).
  int counts[kBins] = {};
  for (int i = 0; i < chunk.count; ++i) {
    const int value = s_chunk[i];
#pragma unroll
    for (int k = 0; k < kBins; ++k) counts[k] += (value ^ (bin0 + k * kBinStride)) ? 0 : 1;
  }
#pragma unroll
  for (int k = 0; k < kBins; ++k) atomicAdd(&d_bins[bin0 + k * kBinStride], counts[k]);
}

// Throws before anything is launched when the method cannot work with this shape.
void check_launch_shape(const char* kernel, ChunkLaunch launch, int bins_per_thread) {
  const int needed = threads_to_cover_the_bins(bins_per_thread);
  // TODO(Q1.1): when launch.threads_per_block is not `needed`, throw a LaunchShapeError whose
  // message names the kernel and says it needs `needed` threads per block (about 6 lines).
  // A block that does not own every bin would leave some bins uncounted (or launch threads owning
  // bins that do not exist) and return a wrong histogram.
  if (launch.threads_per_block != needed) {
    throw LaunchShapeError(std::string(kernel) + ": each thread owns " +
                           std::to_string(bins_per_thread) + " bin(s), so a block needs " +
                           std::to_string(needed) + " threads per block to cover the " +
                           std::to_string(kNumBins) + " bins; got " +
                           std::to_string(launch.threads_per_block));
  }
  if (launch.samples_per_block < 1 || launch.samples_per_block > kMaxSamplesPerBlock) {
    throw LaunchShapeError(std::string(kernel) + ": a chunk holds 1 to " +
                           std::to_string(kMaxSamplesPerBlock) +
                           " samples (it must fit in shared memory); got " +
                           std::to_string(launch.samples_per_block));
  }
}

int blocks_for(int n, ChunkLaunch launch) {
  return static_cast<int>((n + static_cast<long long>(launch.samples_per_block) - 1) /
                          launch.samples_per_block);  // round up: the tail gets a block
}
std::size_t chunk_bytes(ChunkLaunch launch) { return launch.samples_per_block * sizeof(int); }

}  // namespace

void histogram_v1_inverse(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  check_launch_shape("histogram_v1_inverse", launch, kBinsPerThreadInverse);
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  histogram_v1_inverse_kernel<<<blocks_for(n, launch), launch.threads_per_block,
                                chunk_bytes(launch)>>>(d_samples, n, d_bins,
                                                       launch.samples_per_block);
}

void histogram_v2_banks(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  check_launch_shape("histogram_v2_banks", launch, kBinsPerThreadBanks);
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v2_banks_kernel<<<blocks_for(n, launch), launch.threads_per_block,
                              chunk_bytes(launch)>>>(d_samples, n, d_bins,
                                                     launch.samples_per_block);
}

void histogram_v3_banks2(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  check_launch_shape("histogram_v3_banks2", launch, kBinsPerThreadBanks2);
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v3_banks2_kernel<<<blocks_for(n, launch), launch.threads_per_block,
                               chunk_bytes(launch)>>>(d_samples, n, d_bins,
                                                      launch.samples_per_block);
}

void histogram_v4_banks4(const int* d_samples, int n, int* d_bins, ChunkLaunch launch) {
  check_launch_shape("histogram_v4_banks4", launch, kBinsPerThreadBanks4);
  cudaMemsetAsync(d_bins, 0, kNumBins * sizeof(int));
  if (n == 0) return;
  histogram_v4_banks4_kernel<<<blocks_for(n, launch), launch.threads_per_block,
                               chunk_bytes(launch)>>>(d_samples, n, d_bins,
                                                      launch.samples_per_block);
}

// TODO(Q5.1): after running the sweep, return the chunk size that was fastest on your GPU.
// Measured with lab04_sweep: see handouts/04-thread-per-bin-answers.md.
int fastest_samples_per_block() { return 1024; }

}  // namespace lab04
