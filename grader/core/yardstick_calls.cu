// The yardsticks on both sides: built into the yardstick runner (GRADER_RUNNER_SIDE) they run the
// grader's kernels; built into a checker they are calls into that runner.
#include "grader/core/yardstick_calls.cuh"

#include "grader/core/lab_calls.hpp"

#ifdef GRADER_RUNNER_SIDE

#include <stdexcept>

#ifndef CUDA_CPU_BACKEND
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#endif

#include "grader/core/privatized_yardstick.cuh"
#include "grader/core/yardsticks.cuh"

namespace grader::yardstick {

namespace {
__global__ void empty() {}

#ifndef CUDA_CPU_BACKEND
// One 1024-element tile a block, scanned by cub::BlockScan (warp scans, then the warps' totals):
// the library's block-local scan, the yardstick of lab 05's block-local scans (the same tiles).
constexpr int kBlockScanTile = 1024;
__global__ void __launch_bounds__(kBlockScanTile) cub_block_scan_kernel(const int* d_in, int n, int* d_out) {
  using BlockScan = cub::BlockScan<int, kBlockScanTile, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename BlockScan::TempStorage storage;
  const long long i = static_cast<long long>(blockIdx.x) * kBlockScanTile + threadIdx.x;
  int value = i < n ? d_in[i] : 0;
  BlockScan(storage).InclusiveSum(value, value);
  if (i < n) d_out[i] = value;
}
#endif
}  // namespace

// A launch and nothing else: what a round costs beyond its kernels' own time (timed_rounds.cuh).
void empty_kernel(const int*, int*) { empty<<<1, 32>>>(); }
void read(const int* d_in, std::size_t count, int* d_sink) { read_everything_once(d_in, count, d_sink); }
void copy(const int* d_in, std::size_t count, int* d_out) {
  cudaMemcpyAsync(d_out, d_in, count * sizeof(int), cudaMemcpyDeviceToDevice);
}
void baseline_histogram(const int* d_in, int n, int* d_bins, int num_bins) {
  cudaMemsetAsync(d_bins, 0, num_bins * sizeof(int));
  ::grader::baseline_histogram(d_in, n, d_bins, num_bins);
}
void privatized_histogram(const int* d_in, int n, int* d_bins, int num_bins) {
  cudaMemsetAsync(d_bins, 0, num_bins * sizeof(int));
  ::grader::privatized_histogram(d_in, n, d_bins, num_bins);
}
#ifndef CUDA_CPU_BACKEND
std::size_t cub_scan_bytes(int n) {
  std::size_t bytes = 0;
  cub::DeviceScan::InclusiveSum(nullptr, bytes, static_cast<const int*>(nullptr), static_cast<int*>(nullptr), n);
  return bytes;
}
void cub_inclusive_sum(const int* d_in, int n, int* d_out, void* d_temp, std::size_t temp_bytes) {
  cub::DeviceScan::InclusiveSum(d_temp, temp_bytes, d_in, d_out, n);
}
void cub_block_scan(const int* d_in, int n, int* d_out) {
  if (n > 0) cub_block_scan_kernel<<<(n + kBlockScanTile - 1) / kBlockScanTile, kBlockScanTile>>>(d_in, n, d_out);
}
#else  // CUB is GPU code; speed tests skip on the CPU backend before they would call these
std::size_t cub_scan_bytes(int) { throw std::logic_error("the CUB yardstick needs a GPU"); }
void cub_inclusive_sum(const int*, int, int*, void*, std::size_t) {
  throw std::logic_error("the CUB yardstick needs a GPU");
}
void cub_block_scan(const int*, int, int*) { throw std::logic_error("the CUB yardstick needs a GPU"); }
#endif

}  // namespace grader::yardstick

GRADER_RUNNER_TABLE(GRADER_EXPOSE(grader::yardstick::empty_kernel),
                    GRADER_EXPOSE(grader::yardstick::read),
                    GRADER_EXPOSE(grader::yardstick::copy),
                    GRADER_EXPOSE(grader::yardstick::baseline_histogram),
                    GRADER_EXPOSE(grader::yardstick::privatized_histogram),
                    GRADER_EXPOSE(grader::yardstick::cub_scan_bytes),
                    GRADER_EXPOSE(grader::yardstick::cub_inclusive_sum),
                    GRADER_EXPOSE(grader::yardstick::cub_block_scan))

#else

#include "grader/core/timed_rounds.cuh"

namespace grader::yardstick {

void empty_kernel(const int* d_in, int* d_out) {
  call_in<void>(yardstick_runner(), "grader::yardstick::empty_kernel", d_in, d_out);
}
void read(const int* d_in, std::size_t count, int* d_sink) {
  call_in<void>(yardstick_runner(), "grader::yardstick::read", d_in, count, d_sink);
}
void copy(const int* d_in, std::size_t count, int* d_out) {
  call_in<void>(yardstick_runner(), "grader::yardstick::copy", d_in, count, d_out);
}
void baseline_histogram(const int* d_in, int n, int* d_bins, int num_bins) {
  call_in<void>(yardstick_runner(), "grader::yardstick::baseline_histogram", d_in, n, d_bins, num_bins);
}
void privatized_histogram(const int* d_in, int n, int* d_bins, int num_bins) {
  call_in<void>(yardstick_runner(), "grader::yardstick::privatized_histogram", d_in, n, d_bins, num_bins);
}
std::size_t cub_scan_bytes(int n) {
  return call_in<std::size_t>(yardstick_runner(), "grader::yardstick::cub_scan_bytes", n);
}
void cub_inclusive_sum(const int* d_in, int n, int* d_out, void* d_temp, std::size_t temp_bytes) {
  call_in<void>(yardstick_runner(), "grader::yardstick::cub_inclusive_sum", d_in, n, d_out, d_temp, temp_bytes);
}
void cub_block_scan(const int* d_in, int n, int* d_out) {
  call_in<void>(yardstick_runner(), "grader::yardstick::cub_block_scan", d_in, n, d_out);
}

}  // namespace grader::yardstick

#endif
