// Lab 05 - scans and warps: what the grader calls in starter/lab05_scan_warps.cu.
//
// Every version is an inclusive scan of int32: out[i] = in[first] + ... + in[i]. Versions, in the
// order of handouts/05-scan-warps.md:
//   scan_v1_hillis_steele    block-local: one thread per element, log2(tile) steps, double-buffered
//   scan_v2_blelloch         block-local: work-efficient up-sweep and down-sweep, two elements a thread
//   scan_v3_blelloch_padded  v2 with one padding slot every 32 elements: no shared-memory bank conflicts
//   scan_v4_warp_shuffle     block-local: warp scans with __shfl_up_sync, warp totals scanned by one warp
//   scan_v5_multi_block      the whole array: tile totals, their scan, each tile scanned from its offset
//   scan_v6_single_pass      the whole array in one pass with decoupled look-back (stretch)
// Block-local means each tile of `elements_per_block` elements is scanned on its own: `first` is the
// start of i's tile. For the whole-array versions `first` is 0.
//
// The grader's inputs never overflow int32 (every partial sum fits), and d_in, d_out and the
// workspace come from cudaMalloc, so they are aligned for 16-byte (int4) accesses.
#pragma once
#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <string>

namespace lab05 {

// ---- Block-local scans (questions 1-4) ---------------------------------------------------------
struct BlockScanLaunch {
  int elements_per_block;  // the tile: a power of two from 32 to 1024
};
constexpr std::array<int, 6> kTileSizes = {32, 64, 128, 256, 512, 1024};
constexpr int kMaxTile = 1024;

// Question 3 (active warps). When d_flags is not null, the block scans record, for block 0, which
// warps had at least one thread doing an addition in each iteration: flag [iteration][warp] is set
// to 1. The grader zeroes the flags, runs one tile, and counts the flags of each iteration.
constexpr int kMaxIterations = 32;
constexpr int kMaxWarpsPerBlock = 32;
struct WarpActivity {
  int* d_flags = nullptr;  // kMaxIterations * kMaxWarpsPerBlock ints
};

// Call it from a thread that does an addition in iteration `iteration` (0, 1, 2, ... counted over
// the whole scan, the down-sweep continuing the up-sweep's count). Every thread of a warp that
// calls it writes the same 1, so the stores need no atomics.
// Timed runs pass no flags, yet the call's test and store stay in the kernel's code (question
// 3.4). A build with -DLAB05_WITHOUT_WARP_COUNTING (meson setup DIR -Dcuda_args=...) compiles
// every call away, to time the same file without it; its active-warp tests then fail.
__device__ inline void mark_warp_active(WarpActivity activity, int iteration) {
#ifndef LAB05_WITHOUT_WARP_COUNTING
  if (activity.d_flags != nullptr && blockIdx.x == 0 && iteration < kMaxIterations) {
    activity.d_flags[iteration * kMaxWarpsPerBlock + threadIdx.x / 32] = 1;
  }
#else
  (void)activity;
  (void)iteration;
#endif
}

// Each launcher scans d_in[0..n) into d_out[0..n) and returns without waiting for the kernels;
// the grader checks the launch and waits.
void scan_v1_hillis_steele(const int* d_in, int n, int* d_out, BlockScanLaunch launch,
                           WarpActivity activity = {});
void scan_v2_blelloch(const int* d_in, int n, int* d_out, BlockScanLaunch launch,
                      WarpActivity activity = {});
void scan_v3_blelloch_padded(const int* d_in, int n, int* d_out, BlockScanLaunch launch,
                             WarpActivity activity = {});
void scan_v4_warp_shuffle(const int* d_in, int n, int* d_out, BlockScanLaunch launch);

// ---- Whole-array scans (question 5) ------------------------------------------------------------
struct WholeArrayLaunch {
  int threads_per_block;  // 128, 256, 512 or 1024
};
constexpr std::array<int, 4> kWholeArrayBlockSizes = {128, 256, 512, 1024};

// Bytes of device scratch memory v5 and v6 need for n elements (tile totals, look-back states);
// the grader allocates them, filled with garbage, and passes them as d_workspace.
std::size_t scan_workspace_bytes(int n);

void scan_v5_multi_block(const int* d_in, int n, int* d_out, void* d_workspace,
                         WholeArrayLaunch launch);
void scan_v6_single_pass(const int* d_in, int n, int* d_out, void* d_workspace);

// The block size you found fastest for v5 (handout question 5.2); the speed tests use it.
WholeArrayLaunch fastest_multi_block_launch();

inline std::string describe(BlockScanLaunch l) {
  return std::to_string(l.elements_per_block) + " elements/block";
}
inline std::string describe(WholeArrayLaunch l) {
  return std::to_string(l.threads_per_block) + " threads/block";
}

}  // namespace lab05
