// CUB calls as the benchmark's yardsticks: each asks CUB for its temporary storage once, on
// construction, so the timed call is CUB's work alone.
#pragma once
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <memory>

#include "grader/core/cuda_check.cuh"
#include "grader/core/device_buffer.cuh"

namespace bench {

// cub::DeviceHistogram::HistogramEven with `bins` bins of width 1 over [0, bins): the same
// histogram as the labs'. CUB zeroes the counters itself.
template <class Sample, class Counter>
class CubHistogramEven {
 public:
  CubHistogramEven(const Sample* d_samples, int n, Counter* d_bins, int bins)
      : d_samples_(d_samples), n_(n), d_bins_(d_bins), bins_(bins) {
    GRADER_CUDA_CHECK(call(nullptr));
    storage_ = std::make_unique<grader::DeviceBuffer<unsigned char>>(bytes_ > 0 ? bytes_ : 1);
  }
  void operator()() { GRADER_CUDA_CHECK(call(storage_->data())); }

 private:
  cudaError_t call(void* storage) {
    return cub::DeviceHistogram::HistogramEven(storage, bytes_, d_samples_, d_bins_, bins_ + 1, 0,
                                               bins_, n_);
  }
  const Sample* d_samples_;
  int n_;
  Counter* d_bins_;
  int bins_;
  std::size_t bytes_ = 0;
  std::unique_ptr<grader::DeviceBuffer<unsigned char>> storage_;
};

// cub::DeviceScan::InclusiveSum of n int32.
class CubInclusiveSum {
 public:
  CubInclusiveSum(const int* d_in, int* d_out, int n) : d_in_(d_in), d_out_(d_out), n_(n) {
    GRADER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes_, d_in_, d_out_, n_));
    storage_ = std::make_unique<grader::DeviceBuffer<unsigned char>>(bytes_ > 0 ? bytes_ : 1);
  }
  void operator()() {
    GRADER_CUDA_CHECK(cub::DeviceScan::InclusiveSum(storage_->data(), bytes_, d_in_, d_out_, n_));
  }

 private:
  const int* d_in_;
  int* d_out_;
  int n_;
  std::size_t bytes_ = 0;
  std::unique_ptr<grader::DeviceBuffer<unsigned char>> storage_;
};

}  // namespace bench
