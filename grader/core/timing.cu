#include "grader/core/timing.cuh"

#include <algorithm>
#include <vector>

#include "grader/core/cuda_check.cuh"

namespace grader {
namespace {

// Twice the L2 size, at least 16 MiB: writing it evicts whatever the timed work would reuse.
class L2Flusher {
 public:
  L2Flusher() {
    int device = 0, l2_bytes = 0;
    GRADER_CUDA_CHECK(cudaGetDevice(&device));
    GRADER_CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    bytes_ = std::max<size_t>(size_t{16} << 20, 2 * static_cast<size_t>(l2_bytes));
    GRADER_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  }
  ~L2Flusher() { cudaFree(buffer_); }
  void flush() { GRADER_CUDA_CHECK(cudaMemsetAsync(buffer_, ++round_, bytes_)); }

 private:
  void* buffer_ = nullptr;
  size_t bytes_ = 0;
  unsigned char round_ = 0;
};

class Event {
 public:
  Event() { GRADER_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

}  // namespace

Summary time_gpu_ms(const std::function<void()>& work, const TimingOptions& options) {
  static L2Flusher flusher;
  for (int i = 0; i < options.warmup_runs; ++i) work();
  GRADER_CUDA_CHECK(cudaDeviceSynchronize());
  Event start, stop;
  std::vector<double> times;
  for (int i = 0; i < options.timed_runs; ++i) {
    if (options.flush_l2) flusher.flush();
    GRADER_CUDA_CHECK(cudaEventRecord(start.get()));
    work();
    GRADER_CUDA_CHECK(cudaEventRecord(stop.get()));
    GRADER_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    GRADER_CUDA_CHECK(cudaGetLastError());
    float ms = 0;
    GRADER_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    times.push_back(ms);
  }
  return summarize(times);
}

}  // namespace grader
