// The counters of a whole student program on a GPU (lab 00), as a library preloaded into it
// (LD_PRELOAD, set by the checker: program_run.cpp), whose constructor runs before the program's
// own code: CUPTI's activity records count its kernels, with their run time, and its copies by
// direction, and its callbacks see host memory made visible to the GPU (host_visible_apis.hpp)
// and what its device-to-host copies brought back (the first values: d2h_heads).
// At the program's exit one line with the run's token goes to the checker (program_report.hpp).
#include <cupti.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "grader/runner/cupti_records.hpp"
#include "grader/runner/host_visible_apis.hpp"
#include "grader/runner/host_visible_callbacks.hpp"
#include "grader/runner/program_report.hpp"

namespace {

using grader::runner::api_name;

int report_fd = -1;
char report_token[80] = {};  // constant-initialized: the constructor below may run before the C++ initializers
std::atomic<std::uint64_t> kernels{0}, to_device{0}, to_host{0}, kernel_ns{0}, longest_ns{0};
std::mutex host_memory_mutex;
std::string host_memory;

using grader::runner::KernelRecordStart;
using grader::runner::MemcpyRecordStart;

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) {
  *size = std::size_t{1} << 20;
  *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
      const auto* kernel = reinterpret_cast<const KernelRecordStart*>(record);
      const std::uint64_t ns = kernel->end > kernel->start ? kernel->end - kernel->start : 0;
      ++kernels;
      kernel_ns += ns;
      for (std::uint64_t longest = longest_ns.load(); ns > longest && !longest_ns.compare_exchange_weak(longest, ns);) {
      }
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* copy = reinterpret_cast<const MemcpyRecordStart*>(record);
      if (copy->copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD) to_device += copy->bytes;
      if (copy->copy_kind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) to_host += copy->bytes;
    }
  }
  std::free(buffer);
}

void write_report();

// Device-to-host copies: the first kHeadValues int32 of the last 4 of at least that many, read from
// the host buffer once the copy is done (a synchronous copy at its return, an asynchronous one at
// the next synchronization).
using grader::runner::kHeadValues;
std::mutex heads_mutex;
std::vector<std::vector<int>> heads;
std::vector<const void*> pending;  // asynchronous copies' host buffers, read at the next sync

void note_head(const void* host) {
  std::vector<int> values(kHeadValues);
  std::memcpy(values.data(), host, kHeadValues * sizeof(int));
  heads.push_back(values);
  if (heads.size() > 4) heads.erase(heads.begin());
}

// A callback of a copy or synchronization (runtime or driver API); false for any other function.
bool noted_copy(CUpti_CallbackDomain domain, CUpti_CallbackId id, const CUpti_CallbackData* call) {
  const void* host = nullptr;
  std::size_t bytes = 0;
  bool async = false, sync = false;
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (id) {
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
        const auto* p = static_cast<const cudaMemcpy_v3020_params*>(call->functionParams);
        if (p->kind == cudaMemcpyDeviceToHost) host = p->dst, bytes = p->count;
        break;
      }
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
        const auto* p = static_cast<const cudaMemcpyAsync_v3020_params*>(call->functionParams);
        if (p->kind == cudaMemcpyDeviceToHost) host = p->dst, bytes = p->count, async = true;
        break;
      }
      case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
      case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
        sync = true;
        break;
      default:
        return false;
    }
  } else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && id == CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2) {
    const auto* p = static_cast<const cuMemcpyDtoH_v2_params*>(call->functionParams);
    host = p->dstHost, bytes = p->ByteCount;
  } else {
    return false;
  }
  if (call->callbackSite != CUPTI_API_EXIT) return true;
  std::lock_guard<std::mutex> lock(heads_mutex);
  if (sync || !async) {  // what was pending is done now
    for (const void* buffer : pending) note_head(buffer);
    pending.clear();
  }
  if (host != nullptr && bytes >= kHeadValues * sizeof(int)) {
    if (async) {
      pending.push_back(host);
    } else {
      note_head(host);
    }
  }
  return true;
}

bool watch_copies(CUpti_SubscriberHandle subscriber) {
  for (CUpti_CallbackId id : {CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000,
                              CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
                              CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
                              CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020}) {
    if (cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id) != CUPTI_SUCCESS) return false;
  }
  return cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2) ==
         CUPTI_SUCCESS;
}

std::string heads_text() {
  std::lock_guard<std::mutex> lock(heads_mutex);
  std::string text;
  for (const std::vector<int>& values : heads) {
    if (!text.empty()) text += ';';
    for (std::size_t v = 0; v < values.size(); ++v) text += (v ? "," : "") + std::to_string(values[v]);
  }
  return text.empty() ? "none" : text;
}

// A context's creation comes after the CUDA runtime set up its own exit handlers: the report's,
// registered then, runs before they destroy the context (and its records with it, where CUPTI
// would not hand them over); the one the constructor registered stays as a fallback.
void CUPTIAPI api_called(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data) {
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    static std::atomic<bool> registered{false};
    if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && !registered.exchange(true)) std::atexit(write_report);
    return;
  }
  const auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (noted_copy(domain, id, call)) return;
  if (call->callbackSite != CUPTI_API_ENTER) return;
  std::lock_guard<std::mutex> lock(host_memory_mutex);
  if (host_memory.empty()) host_memory = api_name(call->functionName);
}

bool watch_host_memory() {
  static CUpti_SubscriberHandle subscriber;
  if (cuptiSubscribe(&subscriber, api_called, nullptr) != CUPTI_SUCCESS ||
      cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED) != CUPTI_SUCCESS) {
    return false;
  }
  return grader::runner::watch_host_visible_functions(subscriber, &cuptiEnableCallback, &cuptiGetCallbackName) > 0 &&
         watch_copies(subscriber);
}

void write_report() {
  static std::mutex once;
  std::lock_guard<std::mutex> lock(once);
  if (report_fd < 0) return;
  cuptiActivityFlushAll(1);
  char line[1024];
  std::string memory;
  {
    std::lock_guard<std::mutex> lock(host_memory_mutex);
    memory = host_memory.empty() ? "none" : host_memory;
  }
  const int length = std::snprintf(
      line, sizeof line, "kernels=%llu h2d=%llu d2h=%llu kernel_ns=%llu longest_kernel_ns=%llu host_memory=%s "
      "d2h_heads=%s token=%s\n",
      static_cast<unsigned long long>(kernels.load()), static_cast<unsigned long long>(to_device.load()),
      static_cast<unsigned long long>(to_host.load()), static_cast<unsigned long long>(kernel_ns.load()),
      static_cast<unsigned long long>(longest_ns.load()), memory.c_str(), heads_text().c_str(), report_token);
  if (length > 0 && length < static_cast<int>(sizeof line)) (void)!write(report_fd, line, static_cast<std::size_t>(length));
  close(report_fd);
  report_fd = -1;
}

// Before the program's main() and its static initializers: the descriptor moves out of the way,
// the token is kept and the variable wiped (from /proc/self/environ too), and CUPTI starts
// recording. Without the variable, or where CUPTI refuses, nothing is reported: the checker then
// fails the run, saying so.
__attribute__((constructor)) void start_counting() {
  char* value = std::getenv(grader::runner::kReportVariable);
  if (value == nullptr) return;
  const char* token = std::strchr(value, ':');
  const int given = std::atoi(value);
  if (token != nullptr && std::strlen(token + 1) < sizeof report_token) std::strcpy(report_token, token + 1);
  std::memset(value, 'x', std::strlen(value));
  unsetenv(grader::runner::kReportVariable);
  if (given < 3 || report_token[0] == '\0' || fcntl(given, F_GETFD) < 0) return;
  const int fd = fcntl(given, F_DUPFD_CLOEXEC, 512);
  close(given);
  const bool counting =
      fd >= 0 && cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) == CUPTI_SUCCESS &&
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == CUPTI_SUCCESS &&
      cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) == CUPTI_SUCCESS && watch_host_memory();
  if (!counting) {
    std::fprintf(stderr, "[ grader   ] CUPTI refused to count this program's kernels and copies\n");
    if (fd >= 0) close(fd);
    return;
  }
  report_fd = fd;
  std::atexit(write_report);
}

}  // namespace
