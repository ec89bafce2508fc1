// The fields every version of CUPTI's activity records starts with, so the counters build with the
// CUPTI of CUDA 12 and of CUDA 13. The checks name the record each one writes: CUDA 13's CUPTI (API
// version 130000 and up) the 10th kernel and 6th memcpy record, CUDA 12's the 9th and 5th (12.4 has
// no CUpti_ActivityMemcpy6). Used by the runner's counters and by lab 00's preloaded library.
#pragma once
#include <cupti.h>

#include <cstddef>
#include <cstdint>

namespace grader::runner {

struct KernelRecordStart {
  CUpti_ActivityKind kind;
  std::uint8_t cache_config;
  std::uint8_t shared_memory_config;
  std::uint16_t registers_per_thread;
  std::uint32_t partitioned_requested;
  std::uint32_t partitioned_executed;
  std::uint64_t start;
  std::uint64_t end;
};
struct MemcpyRecordStart {
  CUpti_ActivityKind kind;
  std::uint8_t copy_kind;
  std::uint8_t src_kind;
  std::uint8_t dst_kind;
  std::uint8_t flags;
  std::uint64_t bytes;
};
// The whole kernel record of the CUPTI compiled against, for its name (the runner's counters read
// it only where the loaded CUPTI has the same major version).
#if CUPTI_API_VERSION >= 130000
using KernelRecord = CUpti_ActivityKernel10;
#else
using KernelRecord = CUpti_ActivityKernel9;
#endif
#if CUPTI_API_VERSION >= 130000
static_assert(offsetof(CUpti_ActivityKernel10, end) == offsetof(KernelRecordStart, end));
static_assert(offsetof(CUpti_ActivityMemcpy6, bytes) == offsetof(MemcpyRecordStart, bytes));
#else
static_assert(offsetof(CUpti_ActivityKernel9, end) == offsetof(KernelRecordStart, end));
static_assert(offsetof(CUpti_ActivityMemcpy5, bytes) == offsetof(MemcpyRecordStart, bytes));
#endif

}  // namespace grader::runner
