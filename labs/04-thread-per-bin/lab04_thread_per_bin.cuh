// Lab 04 - one thread per bin: what the grader calls in starter/lab04_thread_per_bin.cu.
//
// Versions, in the order of handouts/04-thread-per-bin.md. In all of them a block copies a chunk
// of samples into shared memory, then its threads each own some bins and scan the whole chunk:
//   histogram_v1_inverse  1 bin per thread (1024 threads), counting in shared memory
//   histogram_v2_banks    1 bin per thread (1024 threads), counting in a register, branch-free
//   histogram_v3_banks2   2 bins per thread (512 threads)
//   histogram_v4_banks4   4 bins per thread (256 threads)
// Each block then adds its counts into d_bins with one global atomicAdd per bin.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>  // the error text a launcher throws (std::invalid_argument)

namespace lab04 {

constexpr int kNumBins = 1024;  // 10-bit samples: values 0..1023

// The chunk lives in shared memory: 8192 samples are 32 KiB, which every GPU grants a block
// without opting in (48 KiB), with room left for v1's 4 KiB of counters.
constexpr int kMaxSamplesPerBlock = 8192;

struct ChunkLaunch {
  int threads_per_block;
  int samples_per_block;  // the chunk each block copies into shared memory, 1..kMaxSamplesPerBlock
};

// How many bins one thread owns in each version; a block must own all kNumBins bins, so version
// v works only with threads_per_block == threads_to_cover_the_bins(bins per thread of v).
constexpr int kBinsPerThreadInverse = 1;
constexpr int kBinsPerThreadBanks = 1;
constexpr int kBinsPerThreadBanks2 = 2;
constexpr int kBinsPerThreadBanks4 = 4;
constexpr int threads_to_cover_the_bins(int bins_per_thread) { return kNumBins / bins_per_thread; }

// What a launcher throws, before launching anything, when given a shape its method cannot work
// with (a block that does not own exactly the kNumBins bins, a chunk that is empty or does not
// fit in shared memory). what() names the kernel and says why: for a wrong block size it gives
// the number of threads per block the version needs, e.g. "... needs 512 threads per block".
class LaunchShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Each launcher leaves the full histogram of d_samples[0..n) in d_bins[0..kNumBins), whatever
// d_bins held before (the grader fills it with garbage first). It returns without waiting for the
// kernel; the grader checks the launch and waits.
void histogram_v1_inverse(const int* d_samples, int n, int* d_bins, ChunkLaunch launch);
void histogram_v2_banks(const int* d_samples, int n, int* d_bins, ChunkLaunch launch);
void histogram_v3_banks2(const int* d_samples, int n, int* d_bins, ChunkLaunch launch);
void histogram_v4_banks4(const int* d_samples, int n, int* d_bins, ChunkLaunch launch);

// The chunk size you found fastest with the sweep (handout question 5.1); the speed tests use it
// for every version, so they compare the counting methods on the same chunks.
int fastest_samples_per_block();

}  // namespace lab04
