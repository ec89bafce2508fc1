// A device array with guard zones on both sides, so the grader can tell an out-of-bounds write
// from a wrong answer, and a poison fill, so it can tell an unwritten output from a computed one.
// Its memory is shared with the runner process (grader/remote/shared_memory.hpp), so a pointer
// into it can be passed to the student's code there.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grader/core/cuda_check.cuh"
#include "grader/core/guard_damage.hpp"
#include "grader/core/patterns.hpp"
#include "grader/remote/shared_memory.hpp"

namespace grader {

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    base_ = static_cast<unsigned char*>(remote::allocate_shared(bytes() + 2 * kGuardBytes));
    GRADER_CUDA_CHECK(cudaMemset(base_, kGuardByte, kGuardBytes));
    GRADER_CUDA_CHECK(cudaMemset(base_ + kGuardBytes + bytes(), kGuardByte, kGuardBytes));
    fill_poison();
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { remote::free_shared(base_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() { return reinterpret_cast<T*>(base_ + kGuardBytes); }
  const T* data() const { return reinterpret_cast<const T*>(base_ + kGuardBytes); }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void fill_poison() { GRADER_CUDA_CHECK(cudaMemset(data(), kPoisonByte, bytes())); }
  void upload(const std::vector<T>& host) {
    GRADER_CUDA_CHECK(cudaMemcpy(data(), host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    GRADER_CUDA_CHECK(cudaMemcpy(host.data(), data(), bytes(), cudaMemcpyDeviceToHost));
    return host;
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
  std::size_t count_;
  unsigned char* base_ = nullptr;
};

}  // namespace grader
