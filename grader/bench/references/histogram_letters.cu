// 7 bins of letters ('a'..'z', four letters a bin; every other byte ignored): lab 03 (d), then v2.
// Figures and what was tried: grader/bench/NOTES.md, "histogram_letters.cu".
//   v1 shared     7 private bins a block, a shared atomic per letter (all-equal text: one address)
//   v2 registers  no atomic per byte: increments looked up in a per-lane table, summed in registers
#include <cstdint>
#include <stdexcept>

#include "grader/bench/references/references.cuh"

namespace bench::reference {
namespace {

constexpr int kWarpSize = 32;
constexpr unsigned kNibbles = 0x0F0F0F0Fu;
constexpr int kFoldEvery = 15;  // trips of 16 bytes: 8-bit fields gain at most 16 a trip
// The table: one row per byte value, lane l's entry at byte l * 4 of it. Wide rows: 256 bytes,
// lanes in the first 128, so byte k of `word` has its row offset in one __byte_perm: the byte in
// bits 8..15, lane * 4 in bits 0..7. Narrow rows: 128 bytes, the byte shifted to bits 7..14.
template <bool kWide>
constexpr int kRowWords = kWide ? 64 : 32;
template <bool kWide>
constexpr int kTableBytes = kByteBins * kRowWords<kWide> * 4;  // 64 KiB or 32 KiB

template <bool kWide, int kByte>
__device__ __forceinline__ unsigned row_offset(unsigned word, unsigned lane4) {
  if constexpr (kWide) {
    return __byte_perm(word, lane4, 0x5504 | (kByte << 4));
  } else if constexpr (kByte == 0) {
    return ((word << 7) & 0x7F80u) | lane4;
  } else {
    return ((word >> (8 * kByte - 7)) & 0x7F80u) | lane4;
  }
}

__device__ unsigned letter_increment(unsigned byte) {
  const unsigned position = byte - 'a';  // a byte below 'a' wraps to a huge value
  return position < 26 ? 1u << (4 * (position / kLettersPerBin)) : 0u;
}

// v1
__global__ void v1_shared(const std::uint8_t* d_text, int n, unsigned* d_bins) {
  __shared__ unsigned s_bins[kLetterBins];
  for (int b = threadIdx.x; b < kLetterBins; b += blockDim.x) s_bins[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const unsigned position = static_cast<unsigned>(d_text[i]) - 'a';
    if (position < 26) atomicAdd(&s_bins[position / kLettersPerBin], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kLetterBins; b += blockDim.x) {
    if (s_bins[b] != 0) atomicAdd(&d_bins[b], s_bins[b]);
  }
}

// v2 -------------------------------------------------------------------------------------------
// The sum of the four bytes' increments of `word`, read from this lane's column of the table.
template <bool kWide>
__device__ __forceinline__ unsigned increments(const char* s_table, unsigned word, unsigned lane4) {
  const unsigned a = *reinterpret_cast<const unsigned*>(s_table + row_offset<kWide, 0>(word, lane4));
  const unsigned b = *reinterpret_cast<const unsigned*>(s_table + row_offset<kWide, 1>(word, lane4));
  const unsigned c = *reinterpret_cast<const unsigned*>(s_table + row_offset<kWide, 2>(word, lane4));
  const unsigned d = *reinterpret_cast<const unsigned*>(s_table + row_offset<kWide, 3>(word, lane4));
  return a + b + c + d;
}

// Sixteen bytes into the 8-bit fields: bins 0, 2, 4, 6 in the bytes of `even`, 1, 3, 5 in `odd`.
// Each half-vector's 4-bit fields hold at most 8, so neither carries into its neighbour.
template <bool kWide>
__device__ __forceinline__ void count_vector(const char* s_table, const uint4& v, unsigned lane4,
                                             unsigned& even, unsigned& odd) {
  const unsigned first = increments<kWide>(s_table, v.x, lane4) + increments<kWide>(s_table, v.y, lane4);
  const unsigned second = increments<kWide>(s_table, v.z, lane4) + increments<kWide>(s_table, v.w, lane4);
  even += (first & kNibbles) + (second & kNibbles);
  odd += ((first >> 4) & kNibbles) + ((second >> 4) & kNibbles);
}

// The 8-bit fields into the lane's shared counters (bin b of lane l: word b * 32 + l, bank l).
__device__ __forceinline__ void fold(unsigned* s_counts, unsigned lane, unsigned& even, unsigned& odd) {
  atomicAdd(&s_counts[0 * kWarpSize + lane], even & 0xffu);
  atomicAdd(&s_counts[2 * kWarpSize + lane], (even >> 8) & 0xffu);
  atomicAdd(&s_counts[4 * kWarpSize + lane], (even >> 16) & 0xffu);
  atomicAdd(&s_counts[6 * kWarpSize + lane], even >> 24);
  atomicAdd(&s_counts[1 * kWarpSize + lane], odd & 0xffu);
  atomicAdd(&s_counts[3 * kWarpSize + lane], (odd >> 8) & 0xffu);
  atomicAdd(&s_counts[5 * kWarpSize + lane], (odd >> 16) & 0xffu);
  even = odd = 0;
}

template <bool kWide>
__global__ void __launch_bounds__(1024, BENCH_FULL_SM_BLOCKS_OF_1024)
    v2_registers(const std::uint8_t* d_text, int n, unsigned* d_bins) {
  extern __shared__ __align__(16) char s_table[];  // kTableBytes<kWide>
  __shared__ unsigned s_counts[kLetterBins * kWarpSize];
  const unsigned lane = threadIdx.x % kWarpSize;
  const unsigned lane4 = lane * 4;
  const int stride = gridDim.x * blockDim.x;
  const int first = blockIdx.x * blockDim.x + threadIdx.x;
  const int vectors = reinterpret_cast<std::uintptr_t>(d_text) % alignof(uint4) == 0 ? n / 16 : 0;
  const uint4* d_vectors = reinterpret_cast<const uint4*>(d_text);
  int i = first;
  uint4 next = make_uint4(0, 0, 0, 0);
  if (i < vectors) next = d_vectors[i];  // in flight while the table is built
  unsigned* s_words = reinterpret_cast<unsigned*>(s_table);
  for (int k = threadIdx.x; k < kByteBins * kWarpSize; k += blockDim.x) {
    s_words[(k / kWarpSize) * kRowWords<kWide> + k % kWarpSize] = letter_increment(k / kWarpSize);
  }
  for (int k = threadIdx.x; k < kLetterBins * kWarpSize; k += blockDim.x) s_counts[k] = 0;
  __syncthreads();
  unsigned even = 0, odd = 0;
  int trips = 0;
  while (i < vectors) {
    const uint4 current = next;
    i += stride;
    if (i < vectors) next = d_vectors[i];
    count_vector<kWide>(s_table, current, lane4, even, odd);
    if (++trips == kFoldEvery) {
      fold(s_counts, lane, even, odd);
      trips = 0;
    }
  }
  fold(s_counts, lane, even, odd);
  for (int p = 16 * vectors + first; p < n; p += stride) {  // the last n % 16 bytes, or all
    const unsigned position = static_cast<unsigned>(d_text[p]) - 'a';
    if (position < 26) atomicAdd(&s_counts[(position / kLettersPerBin) * kWarpSize + lane], 1u);
  }
  __syncthreads();
  if (threadIdx.x < kLetterBins) {
    unsigned total = 0;
    for (int l = 0; l < kWarpSize; ++l) total += s_counts[threadIdx.x * kWarpSize + l];
    if (total != 0) atomicAdd(&d_bins[threadIdx.x], total);
  }
}

}  // namespace

void histogram_letters_v1_shared(const std::uint8_t* d_text, int n, unsigned* d_bins, GridLaunch launch) {
  cudaMemsetAsync(d_bins, 0, kLetterBins * sizeof(unsigned));
  if (n == 0) return;  // a grid of zero blocks is an invalid launch
  v1_shared<<<launch.blocks, launch.threads_per_block>>>(d_text, n, d_bins);
}

void histogram_letters_v2_registers(const std::uint8_t* d_text, int n, unsigned* d_bins, GridLaunch launch) {
  if (launch.threads_per_block % kWarpSize != 0) {
    throw std::invalid_argument("letters v2: threads per block must be a multiple of 32");
  }
  // Wide rows need more than the 48 KiB of shared memory a block gets unasked; a GPU that cannot
  // give 64 KiB and the counters (sm_75) gets narrow ones.
  static const bool wide = [] {
    int device = 0, optin = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    const bool fits = optin >= kTableBytes<true> + 1024 &&
                      cudaFuncSetAttribute(v2_registers<true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           kTableBytes<true>) == cudaSuccess;
    cudaGetLastError();  // a refusal is no launch error
    return fits;
  }();
  cudaMemsetAsync(d_bins, 0, kLetterBins * sizeof(unsigned));
  if (n == 0) return;
  constexpr int kWideBytes = kTableBytes<true>, kNarrowBytes = kTableBytes<false>;
  if (wide) {
    v2_registers<true><<<launch.blocks, launch.threads_per_block, kWideBytes>>>(d_text, n, d_bins);
  } else {
    v2_registers<false><<<launch.blocks, launch.threads_per_block, kNarrowBytes>>>(d_text, n, d_bins);
  }
}

GridLaunch letters_v2_launch(int sm_count) { return {2 * sm_count, 1024}; }

}  // namespace bench::reference
