// CUPTI, loaded at run time (never linked): the toolkit's own library first, then what the dynamic
// loader finds. CUPTI(name) is CUPTI's function `name`, or nullptr where CUPTI did not load; the
// runner's counters (counters_cuda.cu) and its evidence (evidence_cuda.cu) share the one library.
#pragma once
#include <cupti.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <string>

namespace grader::runner {

// The toolkit's own CUPTI first (GRADER_CUPTI_DIRS: the folders of the toolkit the runner was
// built with), then what the dynamic loader finds.
inline void* load_cupti() {
  std::string dirs = GRADER_CUPTI_DIRS;
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string path = dirs.substr(start, end - start) + "/libcupti.so";
    if (void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
    start = end + 1;
  }
  // The loader's path: the versioned name the toolkit's runtime packages install, then the bare one.
  const std::string versioned = "libcupti.so." + std::to_string(CUDART_VERSION / 1000);
  if (void* library = dlopen(versioned.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
  return dlopen("libcupti.so", RTLD_NOW | RTLD_LOCAL);
}

// CUPTI(cuptiActivityEnable) is CUPTI's function, or nullptr where CUPTI did not load.
template <typename Function>
inline Function cupti_function(const char* name) {
  static void* const library = load_cupti();
  return library ? reinterpret_cast<Function>(dlsym(library, name)) : nullptr;
}
#define CUPTI(function) \
  ([] { static const auto f = cupti_function<decltype(&::function)>(#function); return f; }())


}  // namespace grader::runner
