// The 256-bin byte histogram's fastest block (histogram_bytes.cu v3), shared with equalization.cu
// v2, whose first launch is this histogram plus the lookup table, and equalization_fused.cu.
// 32 copies of the 256 bins per block, one per lane: lane l's copy of bin v is word v * 32 + l, in
// bank l, so the 32 atomics of a warp never meet in a bank, whatever the bytes (all-equal bytes
// included: no single hot address). 32 KiB of shared memory per block.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace bench::reference::bytes {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kBins = 256;
constexpr int kCopies = kWarpSize;
constexpr int kSharedWords = kBins * kCopies;  // 32 KiB

// The four bytes of `word` into this lane's copy: byte k's word offset is byte * 128 + lane * 4,
// one shift and one and-or (the lane's offset, below bit 7, never overlaps the byte's bits 7..14).
__device__ __forceinline__ void count_word(char* s_base, unsigned word, unsigned lane4) {
  atomicAdd(reinterpret_cast<unsigned*>(s_base + (((word << 7) & 0x7F80u) | lane4)), 1u);
  atomicAdd(reinterpret_cast<unsigned*>(s_base + (((word >> 1) & 0x7F80u) | lane4)), 1u);
  atomicAdd(reinterpret_cast<unsigned*>(s_base + (((word >> 9) & 0x7F80u) | lane4)), 1u);
  atomicAdd(reinterpret_cast<unsigned*>(s_base + (((word >> 17) & 0x7F80u) | lane4)), 1u);
}

__device__ __forceinline__ void count_vector(char* s_base, const uint4& v, unsigned lane4) {
  count_word(s_base, v.x, lane4);
  count_word(s_base, v.y, lane4);
  count_word(s_base, v.z, lane4);
  count_word(s_base, v.w, lane4);
}

// Zeroes s_bins (kSharedWords, 16-byte aligned; unless `zero` is false: it then adds to what they
// hold) and counts this thread's grid-stride share of d_bytes[0..n) into it; ends with a barrier.
// Two uint4 per trip, and the next trip's two loads issued before this trip's 32 atomics, so every
// thread always has 32 bytes in flight; the first loads are issued before the zeroing, whose
// barrier they wait through. A d_bytes that is not 16-byte aligned is counted one byte at a time.
__device__ __forceinline__ void count_bytes(const std::uint8_t* d_bytes, int n, unsigned* s_bins,
                                            bool zero = true) {
  const unsigned lane4 = (threadIdx.x % kWarpSize) * 4;
  char* s_base = reinterpret_cast<char*>(s_bins);
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  const int vectors = reinterpret_cast<std::uintptr_t>(d_bytes) % alignof(uint4) == 0 ? n / 16 : 0;
  const uint4* d_vectors = reinterpret_cast<const uint4*>(d_bytes);
  uint4 a = make_uint4(0, 0, 0, 0), b = a;
  int i = first;
  if (i < vectors) a = d_vectors[i];
  if (i + stride < vectors) b = d_vectors[i + stride];
  uint4* s_vectors = reinterpret_cast<uint4*>(s_bins);
  for (int w = threadIdx.x; zero && w < kSharedWords / 4; w += blockDim.x) s_vectors[w] = make_uint4(0, 0, 0, 0);
  __syncthreads();
  for (; i < vectors; i += 2 * stride) {
    const uint4 x = a, y = b;
    const bool has_y = i + stride < vectors;
    if (i + 2 * stride < vectors) a = d_vectors[i + 2 * stride];
    if (i + 3 * stride < vectors) b = d_vectors[i + 3 * stride];
    count_vector(s_base, x, lane4);
    if (has_y) count_vector(s_base, y, lane4);
  }
  for (int p = 16 * vectors + first; p < n; p += stride) {
    atomicAdd(&s_bins[d_bytes[p] * kCopies + lane4 / 4], 1u);
  }
  __syncthreads();
}

// Adds the block's 32 copies of every bin into d_bins, one global atomic per non-empty bin. Work
// item w: bin w / 4, copies 8 * (w % 4) .. + 7, each thread starting at a copy rotated by its bin so
// that a warp's 32 reads hit 32 banks; then two shuffles add the four parts. blockDim.x: a
// multiple of 32 (a warp's lanes then all take part in every round of the loop).
__device__ __forceinline__ void merge_copies(const unsigned* s_bins, unsigned* d_bins) {
  for (int w = threadIdx.x; w < kBins * 4; w += blockDim.x) {
    const int bin = w / 4, part = w % 4;
    unsigned total = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) total += s_bins[bin * kCopies + part * 8 + (k + bin) % 8];
    total += __shfl_xor_sync(kFullMask, total, 1);
    total += __shfl_xor_sync(kFullMask, total, 2);
    if (part == 0 && total != 0) atomicAdd(&d_bins[bin], total);
  }
}

}  // namespace bench::reference::bytes
