// The runner's counters on a GPU: CUPTI's activity records of what actually ran on the device
// (kernels, and copies with their direction), whatever API the student's code launched them with.
// CUPTI is loaded at run time, not linked: without it (or without a driver) the runner still
// starts, and its counts read "uncounted", which the checker reports as a check it cannot make.
#include <cupti.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "grader/runner/cupti_records.hpp"
#include "grader/runner/host_visible_apis.hpp"
#include "grader/runner/host_visible_callbacks.hpp"
#include "grader/runner/counters.hpp"
#include "grader/runner/cupti_loader.hpp"

namespace grader::runner {
namespace {

std::atomic<std::uint64_t> kernels{0};
std::atomic<std::uint64_t> to_host{0};
bool counting = false;

using grader::runner::KernelRecord;
using grader::runner::MemcpyRecordStart;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *size = std::size_t{1} << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

// Kernel names, from the record of the CUPTI this runner was compiled with (cupti_records.hpp);
// where the loaded library is of another major version its records may be laid out otherwise:
// then no name is kept, and the technique checks say the kernels that ran are unknown.
std::mutex names_mutex;
std::set<std::string> launched_names;

bool names_readable() {
  static const bool readable = [] {
    std::uint32_t version = 0;
    return CUPTI(cuptiGetVersion) && CUPTI(cuptiGetVersion)(&version) == CUPTI_SUCCESS &&
           version / 10000 == CUPTI_API_VERSION / 10000;
  }();
  return readable;
}

void note_kernel_name(const CUpti_Activity* record) {
  if (!names_readable()) return;
  const char* name = reinterpret_cast<const KernelRecord*>(record)->name;
  if (name == nullptr) return;
  std::lock_guard<std::mutex> lock(names_mutex);
  if (launched_names.size() < kMaxKernelNames) {
    launched_names.insert(std::string(name).substr(0, kMaxKernelNameLength));
  }
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                               std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (CUPTI(cuptiActivityGetNextRecord)(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      ++kernels;
      note_kernel_name(record);
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* copy = reinterpret_cast<const MemcpyRecordStart*>(record);
      if (copy->copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) to_host += copy->bytes;
    }
  }
  std::free(buffer);
}

Counters last;

// Host memory made visible to the GPU: the first API that did it (sticky), from CUPTI's callbacks
// on every runtime and driver function of host_visible_apis.hpp.
std::mutex problem_mutex;
std::string problem;

void note_problem(const std::string& text) {
  std::lock_guard<std::mutex> lock(problem_mutex);
  if (problem.empty()) problem = text;
}

void CUPTIAPI api_called(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite != CUPTI_API_ENTER) return;
  note_problem(host_memory_message(api_name(call->functionName)));
}

// A callback on every function that makes host memory visible to the GPU.
bool watch_host_memory() {
  if (!CUPTI(cuptiSubscribe) || !CUPTI(cuptiEnableCallback)) return false;
  static CUpti_SubscriberHandle subscriber;
  if (CUPTI(cuptiSubscribe)(&subscriber, api_called, nullptr) != CUPTI_SUCCESS) return false;
  return watch_host_visible_functions(subscriber, CUPTI(cuptiEnableCallback), CUPTI(cuptiGetCallbackName)) > 0;
}

// Code of the student's that runs before main() (a static initializer) is seen by nothing: CUDA
// loaded by then (libcuda in the process before this runner touched it) fails every call. Not
// where nothing is counted anyway (under a sanitizer, whose own library may load it early).
bool driver_loaded_before_main() {
  void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  if (driver != nullptr) dlclose(driver);
  return driver != nullptr;
}

void refuse_cuda_before_main() {
  note_problem("your code used CUDA before the runner started (in a static initializer?): the grader "
               "cannot see what it did there, so it cannot check that the work stays on the GPU; make "
               "CUDA calls only in the launchers");
}

// On a GPU with pageable memory access (HMM, or a coherent CPU-GPU link) a kernel can write any
// host memory, malloc's included, with no call the counters see: said once at the start.
void report_pageable_memory_access() {
  int pageable = 0;
  if (cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0) == cudaSuccess && pageable) {
    std::fprintf(stderr, "[ runner   ] this GPU has pageable memory access (cudaDevAttrPageableMemoryAccess "
                         "= 1): kernels can write host memory the counters do not see\n");
  }
}

}  // namespace

std::string host_memory_problem() {
  std::lock_guard<std::mutex> lock(problem_mutex);
  return problem;
}

void start_counting() {
  const bool early = driver_loaded_before_main();
  const bool loaded = CUPTI(cuptiActivityRegisterCallbacks) && CUPTI(cuptiActivityEnable) &&
                      CUPTI(cuptiActivityDisable) && CUPTI(cuptiActivityFlushAll) &&
                      CUPTI(cuptiActivityGetNextRecord);
  counting = loaded &&
             CUPTI(cuptiActivityRegisterCallbacks)(buffer_requested, buffer_completed) == CUPTI_SUCCESS &&
             CUPTI(cuptiActivityEnable)(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS &&
             CUPTI(cuptiActivityEnable)(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS &&
             watch_host_memory();
  if (counting && early) refuse_cuda_before_main();
  if (counting) report_pageable_memory_access();
  if (!counting) {
    std::fprintf(stderr, "[ runner   ] %s: kernel launches cannot be counted\n",
                 loaded ? "CUPTI refused to record" : "libcupti.so was not found");
  }
}

Counters read_and_reset_counters() {
  if (!counting) return {kUncounted, 0, {}};
  CUPTI(cuptiActivityFlushAll)(1);
  const Counters now{kernels.load(), to_host.load(), {}};
  Counters since{now.kernels - last.kernels, now.device_to_host_bytes - last.device_to_host_bytes, {}};
  last = now;
  std::lock_guard<std::mutex> lock(names_mutex);
  since.kernel_names.assign(launched_names.begin(), launched_names.end());
  launched_names.clear();
  return since;
}

}  // namespace grader::runner

namespace grader::runner {

void pause_counting(bool paused) {
  if (!counting) return;
  for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY}) {
    paused ? CUPTI(cuptiActivityDisable)(kind) : CUPTI(cuptiActivityEnable)(kind);
  }
}

}  // namespace grader::runner
