// The runner's counters on a GPU: CUPTI's activity records of what actually ran on the device
// (kernels, and copies with their direction), whatever API the student's code launched them with.
#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#include "grader/remote/runner_counters.hpp"

namespace grader::remote {
namespace {

std::atomic<std::uint64_t> kernels{0};
std::atomic<std::uint64_t> to_host{0};
bool counting = false;

// The fields every version of CUPTI's memcpy record starts with (CUpti_ActivityMemcpy to
// CUpti_ActivityMemcpy6), so this builds with the CUPTI of CUDA 12 and of CUDA 13.
struct MemcpyRecordStart {
  CUpti_ActivityKind kind;
  std::uint8_t copy_kind;
  std::uint8_t src_kind;
  std::uint8_t dst_kind;
  std::uint8_t flags;
  std::uint64_t bytes;
};
static_assert(offsetof(CUpti_ActivityMemcpy6, bytes) == offsetof(MemcpyRecordStart, bytes));

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *size = std::size_t{1} << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      ++kernels;
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* copy = reinterpret_cast<const MemcpyRecordStart*>(record);
      if (copy->copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) to_host += copy->bytes;
    }
  }
  std::free(buffer);
}

Counters last;

}  // namespace

void start_counting() {
  counting = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS &&
             cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS &&
             cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS;
  if (!counting) {
    std::fprintf(stderr, "[ runner   ] CUPTI is unavailable here: kernel launches cannot be counted\n");
  }
}

Counters read_and_reset_counters() {
  if (!counting) return {kUncounted, 0};
  cuptiActivityFlushAll(1);
  const Counters now{kernels.load(), to_host.load()};
  const Counters since{now.kernels - last.kernels, now.device_to_host_bytes - last.device_to_host_bytes};
  last = now;
  return since;
}

}  // namespace grader::remote

namespace grader::remote {

void pause_counting(bool paused) {
  if (!counting) return;
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY}) {
    paused ? cuptiActivityDisable(kind) : cuptiActivityEnable(kind);
  }
}

}  // namespace grader::remote
