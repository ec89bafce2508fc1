// CUPTI's callbacks on every function of host_visible_apis.hpp, for the runner's counters
// (CUPTI loaded at run time) and lab 00's program counters (CUPTI linked): each passes its own
// cuptiEnableCallback and cuptiGetCallbackName (nullptr where that CUPTI has none). The
// functions named by the headers this is built with are always enabled; those whose names
// CUPTI reports at run time too (a newer version of one, a _v3).
#pragma once
#include <cupti.h>

#include <cstdint>
#include <utility>

#include "grader/runner/host_visible_apis.hpp"

namespace grader::runner {

// How many callbacks are on, or -1 where CUPTI refused one.
template <class Enable, class Name>
int watch_host_visible_functions(CUpti_SubscriberHandle subscriber, Enable enable, Name name_of) {
  static constexpr std::pair<CUpti_CallbackDomain, CUpti_CallbackId> kKnown[] = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaHostGetDevicePointer_v3020},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000},
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc_v2},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemHostGetDevicePointer},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemHostGetDevicePointer_v2},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged}};
  int watched = 0;
  for (const auto& [domain, id] : kKnown) {
    if (enable(1, subscriber, domain, id) != CUPTI_SUCCESS) return -1;
    ++watched;
  }
  if (name_of == nullptr) return watched;
  const std::pair<CUpti_CallbackDomain, int> domains[] = {
      {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE},
      {CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE}};
  for (const auto& [domain, size] : domains) {
    for (int id = 1; id < size; ++id) {
      const char* name = nullptr;
      if (name_of(domain, static_cast<std::uint32_t>(id), &name) != CUPTI_SUCCESS ||
          !makes_host_memory_visible(name)) {
        continue;
      }
      if (enable(1, subscriber, domain, static_cast<CUpti_CallbackId>(id)) != CUPTI_SUCCESS) return -1;
      ++watched;
    }
  }
  return watched;
}

}  // namespace grader::runner
