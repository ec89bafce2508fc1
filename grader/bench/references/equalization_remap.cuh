// What equalization.cu's v2 and equalization_fused.cu's v3 and v4 share on the device: the CDF and
// table built by one block from the 256 bins, and the remap through a table copy per lane.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "grader/bench/references/references.cuh"
#include "grader/bench/references/scan_common.cuh"

namespace bench::reference::equalize {
namespace {  // each file that includes it gets its own copies (no relocatable device code)

constexpr int kWarpSize = 32;
constexpr int kWarps = kGrayLevels / kWarpSize;

using scan::warp_inclusive_scan;

// The CDF and the table, computed by threads 0..255 of a block of at least 256 threads (a multiple
// of 32; the others only meet the barriers): thread t holds bin t, returns lut[t] and, unless d_cdf
// is null, writes cdf[t] and lut[t], thread 255 also cdf[256]. The definitions:
// grader/core/equalization_reference.hpp; 64-bit integers, as 255 * N overflows 32 bits from 16.8
// million pixels on.
__device__ unsigned cdf_and_lut(unsigned count, unsigned* d_cdf, std::uint8_t* d_lut) {
  __shared__ unsigned s_warp_totals[kWarps];
  __shared__ unsigned s_c_min;
  const int t = threadIdx.x, lane = t % kWarpSize, warp = t / kWarpSize;
  unsigned inclusive = 0;
  if (t < kGrayLevels) {
    inclusive = warp_inclusive_scan(count);
    if (lane == kWarpSize - 1) s_warp_totals[warp] = inclusive;
  }
  if (t == 0) s_c_min = 0;
  __syncthreads();
  if (warp == 0) {
    const unsigned total = warp_inclusive_scan(lane < kWarps ? s_warp_totals[lane] : 0u);
    if (lane < kWarps) s_warp_totals[lane] = total;
  }
  __syncthreads();
  if (t < kGrayLevels) {
    if (warp > 0) inclusive += s_warp_totals[warp - 1];
    if (d_cdf != nullptr) d_cdf[t] = inclusive - count;
    if (d_cdf != nullptr && t == kGrayLevels - 1) d_cdf[kGrayLevels] = inclusive;
    // The darkest level present: nothing below it, something at it. Exactly one thread.
    if (inclusive - count == 0 && inclusive > 0) s_c_min = inclusive;
  }
  __syncthreads();
  unsigned level = 0;
  if (t < kGrayLevels) {
    const unsigned long long c = inclusive, c_min = s_c_min;
    const unsigned long long spread = s_warp_totals[kWarps - 1] - c_min;
    if (spread == 0) {
      level = t;  // one gray level (or no pixel): keep the image as it is
    } else if (c < c_min) {
      level = 0;  // below the darkest level present
    } else {
      level = static_cast<unsigned>((2 * 255 * (c - c_min) + spread) / (2 * spread));  // half up
    }
    if (d_lut != nullptr) d_lut[t] = static_cast<std::uint8_t>(level);
  }
  return level;
}

// The four pixels of `word` through this lane's copy of the table (level v: word v * 32 + lane).
__device__ __forceinline__ unsigned remap_word(const char* s_base, unsigned word, unsigned lane4) {
  const unsigned a = *reinterpret_cast<const unsigned*>(s_base + (((word << 7) & 0x7F80u) | lane4));
  const unsigned b = *reinterpret_cast<const unsigned*>(s_base + (((word >> 1) & 0x7F80u) | lane4));
  const unsigned c = *reinterpret_cast<const unsigned*>(s_base + (((word >> 9) & 0x7F80u) | lane4));
  const unsigned d = *reinterpret_cast<const unsigned*>(s_base + (((word >> 17) & 0x7F80u) | lane4));
  return a | (b << 8) | (c << 16) | (d << 24);
}

// The sixteen pixels of `p` through this lane's copy of the table.
__device__ __forceinline__ uint4 remap_vector(const char* s_base, const uint4& p, unsigned lane4) {
  return make_uint4(remap_word(s_base, p.x, lane4), remap_word(s_base, p.y, lane4),
                    remap_word(s_base, p.z, lane4), remap_word(s_base, p.w, lane4));
}

// Pixels from..n one at a time, this thread's grid-stride share (what the vectors leave).
__device__ __forceinline__ void remap_scalars(const std::uint8_t* d_pixels, std::uint8_t* d_out, int from, int n,
                                              int first, int stride, const unsigned* s_table, unsigned lane4) {
  for (int p = from + first; p < n; p += stride) {
    d_out[p] = static_cast<std::uint8_t>(s_table[d_pixels[p] * kWarpSize + lane4 / 4]);
  }
}

// Vectors in[0..vectors) through the table into out, this thread's grid-stride share, walking
// backwards (the end was read last, so may still be in L2), the next load in flight while this
// vector goes through the table, stored with evict-first so the output does not push it out.
__device__ __forceinline__ void remap_backwards(const uint4* in, uint4* out, int vectors, int first,
                                                int stride, const char* s_base, unsigned lane4) {
  int i = vectors - 1 - first;
  uint4 next = make_uint4(0, 0, 0, 0);
  if (i >= 0) next = in[i];
  while (i >= 0) {
    const uint4 p = next;
    const int at = i;
    i -= stride;
    if (i >= 0) next = in[i];
    __stcs(out + at, remap_vector(s_base, p, lane4));
  }
}

}  // namespace
}  // namespace bench::reference::equalize
