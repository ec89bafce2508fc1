#include "grader/core/scan_yardsticks.cuh"

#include <cub/device/device_scan.cuh>

#include <memory>
#include <vector>

#include "grader/core/cuda_check.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/scan_reference.hpp"
#include "grader/core/timing.cuh"

namespace grader {
namespace {

// CUB asks for its temporary storage size first; the buffer is sized once per input size.
class CubInclusiveSum {
 public:
  CubInclusiveSum(const int* d_in, int* d_out, std::size_t count)
      : d_in_(d_in), d_out_(d_out), count_(count) {
    GRADER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes_, d_in_, d_out_, count_));
    storage_ = std::make_unique<DeviceBuffer<unsigned char>>(bytes_ > 0 ? bytes_ : 1);
  }
  void operator()() {
    GRADER_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(storage_->data(), bytes_, d_in_, d_out_, count_));
  }

 private:
  const int* d_in_;
  int* d_out_;
  std::size_t count_;
  std::size_t bytes_ = 0;
  std::unique_ptr<DeviceBuffer<unsigned char>> storage_;
};

}  // namespace

Measurement measure_copy_bandwidth(const int* d_src, int* d_dst, std::size_t count) {
  Measurement m;
  m.bytes = 2.0 * static_cast<double>(count) * sizeof(int);
  m.time_ms = time_gpu_ms([&] {
    GRADER_CUDA_CHECK(cudaMemcpyAsync(d_dst, d_src, count * sizeof(int), cudaMemcpyDeviceToDevice));
  });
  check_kernel_ran("cudaMemcpyAsync (grader yardstick)", "device to device copy");
  return m;
}

Measurement measure_cub_inclusive_sum(const int* d_in, int* d_out, std::size_t count) {
  CubInclusiveSum scan(d_in, d_out, count);
  Measurement m;
  m.bytes = 2.0 * static_cast<double>(count) * sizeof(int);
  m.time_ms = time_gpu_ms([&] { scan(); });
  check_kernel_ran("cub::DeviceScan::InclusiveSum (grader yardstick)", "CUB's own choice");
  return m;
}

bool cub_inclusive_sum_matches_cpu(std::size_t count) {
  const std::vector<int> values = uniform_values(count, -1000, 1000, 7);
  DeviceBuffer<int> d_in(values);
  DeviceBuffer<int> d_out(count);
  CubInclusiveSum scan(d_in.data(), d_out.data(), count);
  scan();
  check_kernel_ran("cub::DeviceScan::InclusiveSum (grader yardstick)", "CUB's own choice");
  return d_out.download() == cpu_inclusive_scan(values);
}

}  // namespace grader
