// The benchmark's own reference kernels (README.md here): one .cu per kernel story, versions
// numbered in the order of the labs' handouts, each launcher declared below. The last version of a
// story is meant to be its fastest; the targets read whichever is fastest in the run. Every
// launcher leaves its whole result in its output whatever the output held before, and returns
// without waiting for the GPU.
// Device pointers come from cudaMalloc (16-byte aligned) unless a comment says a kernel takes any.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

// __launch_bounds__'s minimum blocks per SM for the kernels of 1024 threads that want a full SM:
// 2 where an SM holds 2048 threads (ptxas then keeps them to 32 registers), else 1 (sm_75 holds
// 1024 threads, sm_86 and sm_89 1536: ptxas ignores a larger minimum with a warning).
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ == 700 || __CUDA_ARCH__ == 720 || __CUDA_ARCH__ == 800 || \
    __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000
#define BENCH_FULL_SM_BLOCKS_OF_1024 2
#else
#define BENCH_FULL_SM_BLOCKS_OF_1024 1
#endif

namespace bench::reference {

// Launch shapes; the member names are the ones grader::describe reads.
struct SliceLaunch {
  int threads_per_block;
  int samples_per_thread;
};
struct GridLaunch {
  int blocks;
  int threads_per_block;
};
struct ChunkLaunch {
  int threads_per_block;
  int samples_per_block;
};

// ---- histogram_1024.cu: 1024 bins of int samples in [0, 1024) (labs 01 to 03) -------------------
constexpr int kBins1024 = 1024;
void histogram_1024_v1_global_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch);
void histogram_1024_v2_global_grid_stride(const int* d_samples, int n, int* d_bins, GridLaunch launch);
void histogram_1024_v3_global_unroll(const int* d_samples, int n, int* d_bins, SliceLaunch launch);
void histogram_1024_v4_global_ilp(const int* d_samples, int n, int* d_bins, SliceLaunch launch);
void histogram_1024_v5_shared_slices(const int* d_samples, int n, int* d_bins, SliceLaunch launch);
// Any d_samples: a pointer that is not 16-byte aligned is read one sample at a time.
void histogram_1024_v6_shared_grid_stride(const int* d_samples, int n, int* d_bins, GridLaunch launch);
// The shapes the benchmark times (the labs' sweeps chose them on an H100 and an H200).
SliceLaunch global_slice_launch();                 // v1, v3, v4: 256 threads, 64 samples each
GridLaunch global_grid_launch(int sm_count);       // v2: 8 blocks of 256 per SM
SliceLaunch shared_slice_launch();                 // v5: 256 threads, 16 samples each
GridLaunch shared_grid_launch(int sm_count);       // v6, 4096 bins, letters v1: 2 x 1024 per SM

// ---- histogram_thread_per_bin.cu: 1024 bins, one thread per bin (lab 04) ------------------------
// threads_per_block must be kBins1024 / (bins per thread); samples_per_block 1..8192.
void histogram_tpb_v1_inverse(const int* d_samples, int n, int* d_bins, ChunkLaunch launch);
void histogram_tpb_v2_banks(const int* d_samples, int n, int* d_bins, ChunkLaunch launch);
void histogram_tpb_v3_banks2(const int* d_samples, int n, int* d_bins, ChunkLaunch launch);
void histogram_tpb_v4_banks4(const int* d_samples, int n, int* d_bins, ChunkLaunch launch);
ChunkLaunch tpb_launch(int bins_per_thread);       // 1024 samples per block

// ---- histogram_4096.cu: 4096 bins of unsigned values in [0, 4096), and the saturated bins -------
constexpr int kBins4096 = 4096;
// Any d_values (see v6 of 1024 bins).
void histogram_4096_v1_wide(const unsigned* d_values, int n, unsigned* d_bins, GridLaunch launch);
void saturate_4096_v1(unsigned* d_bins, int num_bins, unsigned cap);  // in place, min(bin, cap)
// v2: v1's histogram whose last block to finish caps the bins: no second launch.
// d_done: one unsigned, zero before the first call; every call leaves it zero.
void histogram_4096_v2_saturated(const unsigned* d_values, int n, unsigned* d_bins, unsigned cap,
                                 unsigned* d_done, GridLaunch launch);
// v3: the histogram into d_accumulator (kBins4096 unsigned, zero before the first call; every call
// leaves it zero), then a finisher caps it into d_bins: no memset, no handshake.
void histogram_4096_v3_rotated(const unsigned* d_values, int n, unsigned* d_bins, unsigned cap,
                               unsigned* d_accumulator, GridLaunch launch);
// v4: v3 with one block an SM and four vectors a trip (same accumulator contract).
void histogram_4096_v4_one_block_an_sm(const unsigned* d_values, int n, unsigned* d_bins, unsigned cap,
                                       unsigned* d_accumulator, GridLaunch launch);
GridLaunch histogram_4096_v4_launch(int sm_count);  // v4: 1 block of 1024 per SM

// ---- histogram_bytes.cu: 256 bins of bytes (lab 03 (b), lab 06 stage 1) -------------------------
constexpr int kByteBins = 256;
void histogram_bytes_v1_thread_per_bin(const std::uint8_t* d_bytes, int n, unsigned* d_bins, int blocks);
// Any d_bytes (v2, v3): a pointer that is not 16-byte aligned is read one byte at a time.
void histogram_bytes_v2_bank_copies(const std::uint8_t* d_bytes, int n, unsigned* d_bins, GridLaunch launch);
// threads_per_block: a multiple of 32.
void histogram_bytes_v3_prefetch(const std::uint8_t* d_bytes, int n, unsigned* d_bins, GridLaunch launch);
GridLaunch bytes_v2_launch(int sm_count);          // 4 x 512 per SM
GridLaunch bytes_v3_launch(int sm_count);          // 2 x 1024 per SM

// ---- histogram_letters.cu: 'a'..'z' in groups of 4, 7 bins; other bytes ignored (lab 03 (d)) ----
constexpr int kLettersPerBin = 4;
constexpr int kLetterBins = 7;
// Any d_text (v1, v2); threads_per_block: a multiple of 32 for v2.
void histogram_letters_v1_shared(const std::uint8_t* d_text, int n, unsigned* d_bins, GridLaunch launch);
void histogram_letters_v2_registers(const std::uint8_t* d_text, int n, unsigned* d_bins, GridLaunch launch);
GridLaunch letters_v2_launch(int sm_count);        // 2 x 1024 per SM

// ---- scan_tiles.cu: inclusive scans of int32 restarted every `tile` elements (lab 05 v1-v4) -----
// tile: a power of two from 32 to 1024.
constexpr int kMaxTile = 1024;
void scan_v1_hillis_steele(const int* d_in, int n, int* d_out, int tile);
void scan_v2_blelloch(const int* d_in, int n, int* d_out, int tile);
void scan_v3_blelloch_padded(const int* d_in, int n, int* d_out, int tile);
void scan_v4_warp_shuffle(const int* d_in, int n, int* d_out, int tile);

// ---- scan_array.cu, scan_wide_rows.cu: inclusive scan of a whole int32 array (lab 05 v5, v6; ----
// then v7 to v11). d_workspace: scan_workspace_bytes(n) bytes, any content (each call initializes
// what it uses).
std::size_t scan_workspace_bytes(int n);
void scan_v5_multi_block(const int* d_in, int n, int* d_out, void* d_workspace, int threads_per_block);
void scan_v6_single_pass(const int* d_in, int n, int* d_out, void* d_workspace);
void scan_v7_wide_rows(const int* d_in, int n, int* d_out, void* d_workspace);  // 128 threads x 48
// v8 to v11 keep their own workspace (their tagged states are never cleared between calls).
void scan_v8_tagged(const int* d_in, int n, int* d_out);
void scan_v9_launch_order(const int* d_in, int n, int* d_out);  // 128 threads x 48
void scan_v10_wide_tiles(const int* d_in, int n, int* d_out);   // 128 threads x 64
void scan_v11_split_tile(const int* d_in, int n, int* d_out);   // 128 threads x 2 x 64
constexpr int kMultiBlockThreads = 128;            // v5's block size (lab 05's sweep)

// ---- equalization.cu, equalization_fused.cu: histogram equalization of n 8-bit pixels (lab 06) -
// Definitions and rounding: grader/core/equalization_reference.hpp.
constexpr int kGrayLevels = 256;
constexpr int kCdfEntries = kGrayLevels + 1;
struct Workspace {
  unsigned* d_bins;     // kGrayLevels
  unsigned* d_cdf;      // kCdfEntries
  std::uint8_t* d_lut;  // kGrayLevels
  unsigned* d_scratch;  // v2: kGrayLevels + 1, zero before the first call; every call leaves it zero
};
void cdf_v1(const unsigned* d_bins, unsigned* d_cdf);   // one block: the exclusive scan
void lut_v1(const unsigned* d_cdf, std::uint8_t* d_lut);  // one block: the lookup table
void remap_v1(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out);
// v1: four stages (bytes v2, cdf_v1, lut_v1, remap_v1), each its own launch.
void equalize_v1(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace);
// v2: two launches: bytes v3 whose last block scans and builds the table, then remap_v2.
void remap_v2(const std::uint8_t* d_pixels, int n, const std::uint8_t* d_lut, std::uint8_t* d_out);
void equalize_v2(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace);
// v3: one cooperative launch; each block keeps a chunk of the image in shared memory between
// counting and remapping, so that chunk is read once. v4: one block an SM, a larger chunk, and
// vectors in registers too.
struct FusedLaunch {
  int blocks;        // all resident at once
  int held_vectors;  // 16-byte vectors of the image each block holds in shared memory
  int shared_bytes;  // dynamic shared memory a block: the table's 32 KiB and its chunk
  int vectors_in_registers;  // a thread
};
// Bytes of an n-byte image that a fused launch keeps on chip from the count to the remap (the
// kernel's own rule: all its chunks and registers, or nothing where the image is smaller).
long long fused_held_bytes(const FusedLaunch& launch, int n);
const FusedLaunch& equalize_v3_launch();
void equalize_v3(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace);
const FusedLaunch& equalize_v4_launch();
void equalize_v4(const std::uint8_t* d_in, int n, std::uint8_t* d_out, Workspace workspace);

}  // namespace bench::reference
