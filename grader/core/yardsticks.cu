#include "grader/core/yardsticks.cuh"

#include "grader/core/cuda_check.cuh"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/timing.cuh"
#include "yardstick_kernels.cuh"  // beside this file: the CPU backend's transform inlines it

namespace grader {
namespace {

int sms() { return device_status().properties.multiProcessorCount; }

}  // namespace

void read_everything_once(const int* d_data, std::size_t count, int* d_sink) {
  yardstick_kernels::launch_read_everything(d_data, count, d_sink, sms());
}

Measurement measure_read_bandwidth(const int* d_data, std::size_t count) {
  DeviceBuffer<int> sink(1);
  Measurement m;
  m.bytes = static_cast<double>(count) * sizeof(int);
  m.time_ms = time_gpu_ms([&] { read_everything_once(d_data, count, sink.data()); });
  check_kernel_ran("read_everything (grader yardstick)", "read bandwidth");
  return m;
}

void baseline_histogram(const int* d_samples, int n, int* d_bins, int num_bins) {
  if (n == 0) return;
  yardstick_kernels::launch_histogram_global_atomics(d_samples, n, d_bins, num_bins, sms());
}

Measurement measure_baseline_histogram(const int* d_samples, int n, int num_bins) {
  DeviceBuffer<int> bins(static_cast<std::size_t>(num_bins));
  Measurement m;
  m.bytes = static_cast<double>(n) * sizeof(int);
  m.time_ms = time_gpu_ms([&] {
    GRADER_CUDA_CHECK(cudaMemsetAsync(bins.data(), 0, bins.bytes()));
    baseline_histogram(d_samples, n, bins.data(), num_bins);
  });
  check_kernel_ran("histogram_global_atomics (grader baseline)", "grid-stride");
  return m;
}

}  // namespace grader
