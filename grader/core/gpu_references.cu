#include "grader/core/gpu_references.cuh"

#ifndef CUDA_CPU_BACKEND
#include <cub/device/device_scan.cuh>
#endif

#include <algorithm>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/equalization_reference.hpp"
#include "grader/core/patterns.hpp"
#include "grader/core/privatized_yardstick.cuh"
#include "grader/core/yardsticks.cuh"

namespace grader {
namespace {

template <class T>
__global__ void count_differences(const T* a, const T* b, std::size_t count, unsigned long long* differences) {
  unsigned long long mine = 0;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    mine += a[i] != b[i];
  }
  if (mine) atomicAdd(differences, mine);
}

__global__ void tile_scans(const int* in, int n, int* out, int tile) {
  const long long first = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) * tile;
  if (first >= n) return;
  int total = 0;
  for (long long i = first; i < first + tile && i < n; ++i) out[i] = total += in[i];
}

// Private bins in shared memory, merged once a block: one flat image (every pixel alike) costs no
// more than any other, where global atomics would serialize on one bin.
__global__ void gray_histogram(const std::uint8_t* pixels, std::size_t n, unsigned* bins) {
  __shared__ unsigned private_bins[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) private_bins[b] = 0;
  __syncthreads();
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    atomicAdd(&private_bins[pixels[i]], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x) {
    if (private_bins[b] != 0) atomicAdd(&bins[b], private_bins[b]);
  }
}

__global__ void remap_with(const std::uint8_t* pixels, std::size_t n, const std::uint8_t* lut, std::uint8_t* out) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = lut[pixels[i]];
  }
}

// A buffer of at least `count` elements, kept for the next call: a round checks K outputs of the
// same size, and a fresh allocation for each (memory shared with the runner: several driver calls)
// would cost more than the check. Never freed: it lives as long as the process, and a static
// destructor would run after CUDA's teardown.
template <class T>
DeviceBuffer<T>& scratch(DeviceBuffer<T>*& kept, std::size_t count) {
  if (kept == nullptr || kept->size() < count) {
    delete kept;
    kept = new DeviceBuffer<T>(std::max<std::size_t>(count, 1));
  }
  return *kept;
}

template <class T>
::testing::AssertionResult same(const T* d_expected, const T* d_got, std::size_t count, const char* what) {
  static DeviceBuffer<unsigned long long>* kept = nullptr;
  DeviceBuffer<unsigned long long>& differences = scratch(kept, 1);
  GRADER_CUDA_CHECK(cudaMemsetAsync(differences.data(), 0, sizeof(unsigned long long)));
  count_differences<<<1024, 256>>>(d_expected, d_got, count, differences.data());
  GRADER_CUDA_CHECK(cudaGetLastError());
  unsigned long long wrong = 0;
  GRADER_CUDA_CHECK(cudaMemcpy(&wrong, differences.data(), sizeof wrong, cudaMemcpyDeviceToHost));
  if (wrong == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << wrong << " of " << count << " " << what << " wrong";
}

}  // namespace

::testing::AssertionResult histogram_matches_reference(const int* d_samples, int n, const int* d_bins,
                                                       int num_bins) {
  static DeviceBuffer<int>* kept = nullptr;
  DeviceBuffer<int>& expected = scratch(kept, static_cast<std::size_t>(num_bins));
  GRADER_CUDA_CHECK(cudaMemsetAsync(expected.data(), 0, num_bins * sizeof(int)));
  // The privatized kernel (tested against the CPU in grader/tests): K outputs a round are checked,
  // and global atomics on all-equal samples would take longer than the round itself.
  if (num_bins <= kPrivatizedMaxBins) {
    privatized_histogram(d_samples, n, expected.data(), num_bins);
  } else {
    baseline_histogram(d_samples, n, expected.data(), num_bins);
  }
  std::vector<int> want(num_bins), got(num_bins);
  GRADER_CUDA_CHECK(cudaMemcpy(want.data(), expected.data(), num_bins * sizeof(int), cudaMemcpyDeviceToHost));
  GRADER_CUDA_CHECK(cudaMemcpy(got.data(), d_bins, num_bins * sizeof(int), cudaMemcpyDeviceToHost));
  const Comparison c = compare_exact(want, got, static_cast<int>(kPoisonWord));
  if (c.matches()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << c.describe("bin");
}

::testing::AssertionResult scan_matches_reference(const int* d_in, int n, const int* d_out, int tile) {
  static DeviceBuffer<int>* kept = nullptr;
  DeviceBuffer<int>& expected = scratch(kept, static_cast<std::size_t>(n));
  if (tile > 0) {
    const int tiles = (n + tile - 1) / tile;
    tile_scans<<<(tiles + 127) / 128, 128>>>(d_in, n, expected.data(), tile);
  } else {
#ifndef CUDA_CPU_BACKEND
    std::size_t bytes = 0;
    GRADER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, d_in, expected.data(), n));
    static DeviceBuffer<unsigned char>* kept_temp = nullptr;
    DeviceBuffer<unsigned char>& temp = scratch(kept_temp, bytes);
    GRADER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), bytes, d_in, expected.data(), n));
#else
    tile_scans<<<1, 1>>>(d_in, n, expected.data(), n);  // one tile: the whole array
#endif
  }
  GRADER_CUDA_CHECK(cudaDeviceSynchronize());
  return same(expected.data(), d_out, static_cast<std::size_t>(n), "elements");
}

::testing::AssertionResult copy_matches(const int* d_in, std::size_t count, const int* d_out) {
  return same(d_in, d_out, count, "elements");
}

::testing::AssertionResult equalization_matches_reference(const std::uint8_t* d_in, std::size_t n,
                                                          const std::uint8_t* d_out) {
  static DeviceBuffer<unsigned>* kept_bins = nullptr;
  DeviceBuffer<unsigned>& bins = scratch(kept_bins, 256);
  GRADER_CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, 256 * sizeof(unsigned)));
  gray_histogram<<<1024, 256>>>(d_in, n, bins.data());
  GRADER_CUDA_CHECK(cudaGetLastError());
  const std::vector<std::uint8_t> lut = cpu_equalization_lut(cpu_exclusive_cdf(bins.download()));
  static DeviceBuffer<std::uint8_t>* kept_lut = nullptr;
  DeviceBuffer<std::uint8_t>& d_lut = scratch(kept_lut, 256);
  d_lut.upload(lut);
  static DeviceBuffer<std::uint8_t>* kept = nullptr;
  DeviceBuffer<std::uint8_t>& expected = scratch(kept, n);
  remap_with<<<1024, 256>>>(d_in, n, d_lut.data(), expected.data());
  GRADER_CUDA_CHECK(cudaDeviceSynchronize());
  return same(expected.data(), d_out, n, "pixels");
}

}  // namespace grader
