// Shared device memory on a GPU through CUDA's virtual memory management: the checker creates
// the physical memory with a POSIX file descriptor handle and maps it; the runner imports the
// descriptor and maps the same memory into its own address space.
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "grader/runner/shared_memory.hpp"

namespace grader::runner {
namespace {

// The driver's functions come through the runtime (which loads libcuda itself) instead of from
// linking libcuda: on a machine without the NVIDIA driver the programs must still start, to say
// that there is no GPU.
template <typename Function>
Function driver_function(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  const cudaError_t status =
      cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t status = cudaGetDriverEntryPoint(name, &function, cudaEnableDefault, &found);
#endif
  if (status != cudaSuccess || found != cudaDriverEntryPointSuccess || function == nullptr) {
    throw std::runtime_error(std::string("shared GPU buffer: the CUDA driver does not provide ") +
                             name + "; install an NVIDIA driver for CUDA 12 or newer");
  }
  return reinterpret_cast<Function>(function);
}

// DRIVER(cuMemCreate) is the driver's cuMemCreate, looked up once; CALL_DRIVER also checks.
#define DRIVER(function) \
  ([] { static const auto f = driver_function<decltype(&::function)>(#function); return f; }())
#define CALL_DRIVER(function, ...) check(DRIVER(function)(__VA_ARGS__), #function)

void check(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  DRIVER(cuGetErrorName)(result, &name);
  DRIVER(cuGetErrorString)(result, &text);
  throw std::runtime_error(std::string("shared GPU buffer: ") + call + " failed: " +
                           (text ? text : "?") + " (" + (name ? name : "?") +
                           "). The grader shares its buffers with the process that runs your code "
                           "through CUDA's virtual memory management, which needs a Linux driver "
                           "with POSIX file descriptor handles (not WSL before driver 555).");
}

CUmemAllocationProp properties() {
  // The runtime's primary context must exist and be current for the driver calls below.
  if (cudaFree(nullptr) != cudaSuccess) throw std::runtime_error("shared GPU buffer: no CUDA context");
  CUdevice device = 0;
  CALL_DRIVER(cuCtxGetDevice, &device);
  CUmemAllocationProp p{};
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = device;
  p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return p;
}

char* reserve_and_map(CUmemGenericAllocationHandle handle, std::size_t bytes,
                      const CUmemAllocationProp& p) {
  CUdeviceptr address = 0;
  CALL_DRIVER(cuMemAddressReserve, &address, bytes, 0, 0, 0);
  CALL_DRIVER(cuMemMap, address, bytes, 0, handle, 0);
  CUmemAccessDesc access{};
  access.location = p.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CALL_DRIVER(cuMemSetAccess, address, bytes, &access, 1);
  return reinterpret_cast<char*>(address);
}

}  // namespace

Exported export_new_allocation(std::size_t bytes) {
  static const CUmemAllocationProp p = properties();
  static const std::size_t granularity = [] {
    std::size_t g = 0;
    CALL_DRIVER(cuMemGetAllocationGranularity, &g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
    return g;
  }();
  bytes = (bytes + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  const CUresult created = DRIVER(cuMemCreate)(&handle, bytes, &p, 0);
  if (created == CUDA_ERROR_OUT_OF_MEMORY) {
    throw std::runtime_error("shared GPU buffer: out of GPU memory allocating " +
                             std::to_string(bytes) + " bytes");
  }
  check(created, "cuMemCreate");
  int fd = -1;
  CALL_DRIVER(cuMemExportToShareableHandle, &fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
  char* base = reserve_and_map(handle, bytes, p);
  CALL_DRIVER(cuMemRelease, handle);  // the mapping keeps the memory alive
  return {base, bytes, fd};
}

void release_exported(const Exported& allocation) noexcept {
  cudaDeviceSynchronize();  // no copy or kernel of the checker's may still use it
  unmap_shared(allocation.base, allocation.bytes);
  close(allocation.fd);
}

void* map_shared(int fd, std::size_t bytes) {
  static const CUmemAllocationProp p = properties();
  CUmemGenericAllocationHandle handle = 0;
  const CUresult imported = DRIVER(cuMemImportFromShareableHandle)(
      &handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd)),
      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  close(fd);
  check(imported, "cuMemImportFromShareableHandle");
  char* base = reserve_and_map(handle, bytes, p);
  CALL_DRIVER(cuMemRelease, handle);
  return base;
}

void unmap_shared(void* base, std::size_t bytes) noexcept {
  const CUdeviceptr address = reinterpret_cast<CUdeviceptr>(base);
  DRIVER(cuMemUnmap)(address, bytes);
  DRIVER(cuMemAddressFree)(address, bytes);
}

}  // namespace grader::runner
