// The CUDA functions that make host memory visible to kernels (pinned, mapped, registered or
// managed memory), by the start of their names as CUPTI's callbacks name them (their _v2 and
// cu64 versions included). A kernel that writes such memory hands its input to the host, where it
// can be counted with nothing on the GPU's counters.
#pragma once
#include <cstring>
#include <string>

namespace grader::runner {

inline bool makes_host_memory_visible(const char* name) {
  static constexpr const char* kPrefixes[] = {
      "cudaHostAlloc", "cudaMallocHost", "cudaHostRegister", "cudaHostGetDevicePointer", "cudaMallocManaged",
      "cuMemHostAlloc", "cuMemAllocHost", "cuMemHostRegister", "cuMemHostGetDevicePointer", "cuMemAllocManaged",
      "cu64MemHostAlloc", "cu64MemAllocHost", "cu64MemHostGetDevicePointer", "cu64MemAllocManaged"};
  if (name == nullptr) return false;
  for (const char* prefix : kPrefixes) {
    if (std::strncmp(name, prefix, std::strlen(prefix)) == 0) return true;
  }
  return false;
}

// "cudaHostAlloc_v3020" -> "cudaHostAlloc".
inline std::string api_name(const char* name) {
  const std::string text = name ? name : "a host memory function";
  return text.substr(0, text.find("_v"));
}

}  // namespace grader::runner
