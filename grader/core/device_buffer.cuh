// A device array with guard zones on both sides, so the grader can tell an out-of-bounds write
// from a wrong answer, and a poison fill, so it can tell an unwritten output from a computed one.
// Its memory is shared with the runner process (grader/runner/shared_memory.hpp), so a pointer
// into it can be passed to the student's code there.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "grader/core/cuda_check.cuh"
#include "grader/core/guard_damage.hpp"
#include "grader/core/patterns.hpp"
#include "grader/runner/shared_memory.hpp"

namespace grader {

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    base_ = static_cast<unsigned char*>(runner::allocate_shared(bytes() + 2 * kGuardBytes));
    GRADER_CUDA_CHECK(cudaMemset(base_, kGuardByte, kGuardBytes));
    GRADER_CUDA_CHECK(cudaMemset(base_ + kGuardBytes + bytes(), kGuardByte, kGuardBytes));
    fill_poison();
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { runner::free_shared(base_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() { return reinterpret_cast<T*>(base_ + kGuardBytes); }
  const T* data() const { return reinterpret_cast<const T*>(base_ + kGuardBytes); }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void fill_poison() { GRADER_CUDA_CHECK(cudaMemset(data(), kPoisonByte, bytes())); }
  void upload(const std::vector<T>& host) {
    for_each_staged_chunk([&](unsigned char* staging, std::size_t offset, std::size_t chunk) {
      std::memcpy(staging, reinterpret_cast<const unsigned char*>(host.data()) + offset, chunk);
      GRADER_CUDA_CHECK(cudaMemcpy(reinterpret_cast<unsigned char*>(data()) + offset, staging, chunk,
                                   cudaMemcpyHostToDevice));
      return true;
    });
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    for_each_staged_chunk([&](unsigned char* staging, std::size_t offset, std::size_t chunk) {
      GRADER_CUDA_CHECK(cudaMemcpy(staging, reinterpret_cast<const unsigned char*>(data()) + offset, chunk,
                                   cudaMemcpyDeviceToHost));
      std::memcpy(reinterpret_cast<unsigned char*>(host.data()) + offset, staging, chunk);
      return true;
    });
    return host;
  }
  // Whether the buffer still holds exactly `host` (e.g. an input the code under test must not
  // change), without a host copy of the whole buffer.
  bool holds(const std::vector<T>& host) const {
    if (host.size() != count_) return false;
    return for_each_staged_chunk([&](unsigned char* staging, std::size_t offset, std::size_t chunk) {
      GRADER_CUDA_CHECK(cudaMemcpy(staging, reinterpret_cast<const unsigned char*>(data()) + offset, chunk,
                                   cudaMemcpyDeviceToHost));
      return std::memcmp(reinterpret_cast<const unsigned char*>(host.data()) + offset, staging, chunk) == 0;
    });
  }

  // "" when both guard zones are intact; otherwise which side was written and where.
  std::string guard_damage() const {
    std::vector<unsigned char> before(kGuardBytes), after(kGuardBytes);
    GRADER_CUDA_CHECK(cudaMemcpy(before.data(), base_, kGuardBytes, cudaMemcpyDeviceToHost));
    GRADER_CUDA_CHECK(
        cudaMemcpy(after.data(), base_ + kGuardBytes + bytes(), kGuardBytes, cudaMemcpyDeviceToHost));
    return describe_guard_damage(before, after, sizeof(T), count_);
  }

 private:
  // Copies between the host and the GPU go through one pinned buffer, in chunks: a DMA from
  // pinned memory runs several times faster than the driver's own staging of pageable memory, and
  // the checks copy hundreds of MiB a test. `visit(staging, offset, chunk)` returns false to stop.
  template <class Visit>
  bool for_each_staged_chunk(Visit&& visit) const {
    constexpr std::size_t kStagingBytes = std::size_t{8} << 20;
    static unsigned char* staging = [] {  // never freed: it lives as long as the process
      void* p = nullptr;
      GRADER_CUDA_CHECK(cudaMallocHost(&p, kStagingBytes));
      return static_cast<unsigned char*>(p);
    }();
    for (std::size_t offset = 0; offset < bytes(); offset += kStagingBytes) {
      if (!visit(staging, offset, std::min(kStagingBytes, bytes() - offset))) return false;
    }
    return true;
  }

  std::size_t count_;
  unsigned char* base_ = nullptr;
};

}  // namespace grader
