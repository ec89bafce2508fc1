// Shared device memory on a GPU through CUDA's virtual memory management: the checker creates
// the physical memory with a POSIX file descriptor handle and maps it; the runner imports the
// descriptor and maps the same memory into its own address space.
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

#include "grader/remote/shared_memory.hpp"

namespace grader::remote {
namespace {

void check(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return;
  const char* name = nullptr;
  const char* text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
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
  check(cuCtxGetDevice(&device), "cuCtxGetDevice");
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
  check(cuMemAddressReserve(&address, bytes, 0, 0, 0), "cuMemAddressReserve");
  check(cuMemMap(address, bytes, 0, handle, 0), "cuMemMap");
  CUmemAccessDesc access{};
  access.location = p.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  check(cuMemSetAccess(address, bytes, &access, 1), "cuMemSetAccess");
  return reinterpret_cast<char*>(address);
}

}  // namespace

Exported export_new_allocation(std::size_t bytes) {
  static const CUmemAllocationProp p = properties();
  static const std::size_t granularity = [] {
    std::size_t g = 0;
    check(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
          "cuMemGetAllocationGranularity");
    return g;
  }();
  bytes = (bytes + granularity - 1) / granularity * granularity;
  CUmemGenericAllocationHandle handle = 0;
  const CUresult created = cuMemCreate(&handle, bytes, &p, 0);
  if (created == CUDA_ERROR_OUT_OF_MEMORY) {
    throw std::runtime_error("shared GPU buffer: out of GPU memory allocating " +
                             std::to_string(bytes) + " bytes");
  }
  check(created, "cuMemCreate");
  int fd = -1;
  check(cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
        "cuMemExportToShareableHandle");
  char* base = reserve_and_map(handle, bytes, p);
  check(cuMemRelease(handle), "cuMemRelease");  // the mapping keeps the memory alive
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
  const CUresult imported = cuMemImportFromShareableHandle(
      &handle, reinterpret_cast<void*>(static_cast<std::uintptr_t>(fd)),
      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  close(fd);
  check(imported, "cuMemImportFromShareableHandle");
  char* base = reserve_and_map(handle, bytes, p);
  check(cuMemRelease(handle), "cuMemRelease");
  return base;
}

void unmap_shared(void* base, std::size_t bytes) noexcept {
  const CUdeviceptr address = reinterpret_cast<CUdeviceptr>(base);
  cuMemUnmap(address, bytes);
  cuMemAddressFree(address, bytes);
}

}  // namespace grader::remote
