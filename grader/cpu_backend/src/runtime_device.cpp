// Device queries and device-wide operations. The CPU backend describes
// itself as one device modelled on a compute capability 8.0 GPU, with one
// "multiprocessor" per host thread that runs blocks.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "cpu_backend/control.hpp"
#include "cpu_backend/runtime_api.hpp"
#include "device_limits.hpp"
#include "fiber.hpp"
#include "function_attributes.hpp"
#include "memory_registry.hpp"
#include "runtime_state.hpp"

using namespace cpu_backend::detail;

namespace {

std::size_t physical_memory_bytes() {
    const long pages = sysconf(_SC_PHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                                 : std::size_t{16} << 30;
}

cudaError_t check_device(int device) { return device == 0 ? cudaSuccess : record_error(cudaErrorInvalidDevice); }

}  // namespace

cudaError_t cudaGetDeviceCount(int* count) {
    if (count == nullptr) return record_error(cudaErrorInvalidValue);
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
    if (device == nullptr) return record_error(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) { return check_device(device); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    if (prop == nullptr) return record_error(cudaErrorInvalidValue);
    if (cudaError_t error = check_device(device)) return error;
    std::memset(prop, 0, sizeof *prop);
    std::snprintf(prop->name, sizeof prop->name, "CUDA CPU backend (%u host threads)", cpu_backend::host_threads());
    prop->totalGlobalMem = physical_memory_bytes();
    prop->sharedMemPerBlock = limits::shared_memory_per_block;
    prop->regsPerBlock = limits::registers_per_block;
    prop->warpSize = 32;
    prop->memPitch = 2147483647;
    prop->maxThreadsPerBlock = static_cast<int>(limits::max_threads_per_block);
    for (int i = 0; i < 3; ++i) {
        prop->maxThreadsDim[i] = static_cast<int>(limits::max_block_dim[i]);
        prop->maxGridSize[i] = static_cast<int>(limits::max_grid_dim[i]);
    }
    prop->clockRate = limits::clock_rate_khz;
    prop->totalConstMem = limits::constant_memory_bytes;
    prop->major = limits::compute_major;
    prop->minor = limits::compute_minor;
    prop->textureAlignment = 512;
    prop->texturePitchAlignment = 32;
    prop->deviceOverlap = 1;
    prop->multiProcessorCount = static_cast<int>(settings_multiprocessors());
    prop->canMapHostMemory = 1;
    prop->concurrentKernels = 1;
    prop->asyncEngineCount = 2;
    prop->unifiedAddressing = 1;
    prop->memoryClockRate = limits::memory_clock_rate_khz;
    prop->memoryBusWidth = limits::memory_bus_width_bits;
    prop->l2CacheSize = limits::l2_cache_bytes;
    prop->maxThreadsPerMultiProcessor = limits::max_threads_per_multiprocessor;
    prop->streamPrioritiesSupported = 1;
    prop->globalL1CacheSupported = 1;
    prop->localL1CacheSupported = 1;
    prop->sharedMemPerMultiprocessor = limits::shared_memory_per_multiprocessor;
    prop->regsPerMultiprocessor = limits::registers_per_block;
    prop->managedMemory = 1;
    prop->hostNativeAtomicSupported = 1;
    prop->pageableMemoryAccess = 1;
    prop->concurrentManagedAccess = 1;
    prop->cooperativeLaunch = 0;
    prop->sharedMemPerBlockOptin = limits::shared_memory_per_block_optin;
    prop->maxBlocksPerMultiProcessor = limits::max_blocks_per_multiprocessor;
    prop->reservedSharedMemPerBlock = limits::reserved_shared_memory_per_block;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    if (value == nullptr) return record_error(cudaErrorInvalidValue);
    if (cudaError_t error = check_device(device)) return error;
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, device);
    switch (attr) {
        case cudaDevAttrMaxThreadsPerBlock: *value = prop.maxThreadsPerBlock; break;
        case cudaDevAttrMaxBlockDimX: *value = prop.maxThreadsDim[0]; break;
        case cudaDevAttrMaxBlockDimY: *value = prop.maxThreadsDim[1]; break;
        case cudaDevAttrMaxBlockDimZ: *value = prop.maxThreadsDim[2]; break;
        case cudaDevAttrMaxGridDimX: *value = prop.maxGridSize[0]; break;
        case cudaDevAttrMaxGridDimY: *value = prop.maxGridSize[1]; break;
        case cudaDevAttrMaxGridDimZ: *value = prop.maxGridSize[2]; break;
        case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(prop.sharedMemPerBlock); break;
        case cudaDevAttrTotalConstantMemory: *value = static_cast<int>(prop.totalConstMem); break;
        case cudaDevAttrWarpSize: *value = prop.warpSize; break;
        case cudaDevAttrMaxPitch: *value = static_cast<int>(prop.memPitch); break;
        case cudaDevAttrMaxRegistersPerBlock: *value = prop.regsPerBlock; break;
        case cudaDevAttrClockRate: *value = prop.clockRate; break;
        case cudaDevAttrTextureAlignment: *value = static_cast<int>(prop.textureAlignment); break;
        case cudaDevAttrGpuOverlap: *value = prop.deviceOverlap; break;
        case cudaDevAttrMultiProcessorCount: *value = prop.multiProcessorCount; break;
        case cudaDevAttrCanMapHostMemory: *value = prop.canMapHostMemory; break;
        case cudaDevAttrConcurrentKernels: *value = prop.concurrentKernels; break;
        case cudaDevAttrMemoryClockRate: *value = prop.memoryClockRate; break;
        case cudaDevAttrGlobalMemoryBusWidth: *value = prop.memoryBusWidth; break;
        case cudaDevAttrL2CacheSize: *value = prop.l2CacheSize; break;
        case cudaDevAttrMaxThreadsPerMultiProcessor: *value = prop.maxThreadsPerMultiProcessor; break;
        case cudaDevAttrAsyncEngineCount: *value = prop.asyncEngineCount; break;
        case cudaDevAttrUnifiedAddressing: *value = prop.unifiedAddressing; break;
        case cudaDevAttrComputeCapabilityMajor: *value = prop.major; break;
        case cudaDevAttrComputeCapabilityMinor: *value = prop.minor; break;
        case cudaDevAttrStreamPrioritiesSupported: *value = prop.streamPrioritiesSupported; break;
        case cudaDevAttrGlobalL1CacheSupported: *value = prop.globalL1CacheSupported; break;
        case cudaDevAttrLocalL1CacheSupported: *value = prop.localL1CacheSupported; break;
        case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
            *value = static_cast<int>(prop.sharedMemPerMultiprocessor);
            break;
        case cudaDevAttrMaxRegistersPerMultiprocessor: *value = prop.regsPerMultiprocessor; break;
        case cudaDevAttrManagedMemory: *value = prop.managedMemory; break;
        case cudaDevAttrHostNativeAtomicSupported: *value = prop.hostNativeAtomicSupported; break;
        case cudaDevAttrPageableMemoryAccess: *value = prop.pageableMemoryAccess; break;
        case cudaDevAttrConcurrentManagedAccess: *value = prop.concurrentManagedAccess; break;
        case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
            *value = prop.pageableMemoryAccessUsesHostPageTables;
            break;
        case cudaDevAttrCooperativeLaunch: *value = prop.cooperativeLaunch; break;
        case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(prop.sharedMemPerBlockOptin); break;
        case cudaDevAttrMaxBlocksPerMultiprocessor: *value = prop.maxBlocksPerMultiProcessor; break;
        case cudaDevAttrReservedSharedMemoryPerBlock:
            *value = static_cast<int>(prop.reservedSharedMemPerBlock);
            break;
        default: *value = 0; break;  // features the backend does not have
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() {
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    // Launches finish before they return; what is left to find is damage.
    check_all_canaries("at cudaDeviceSynchronize");
    return sticky_error_check();
}

cudaError_t cudaDeviceReset() {
    device_free_all();
    forget_function_attributes();
    reset_error_state();
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config) {
    (void)config;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
    if (free_bytes == nullptr || total_bytes == nullptr) return record_error(cudaErrorInvalidValue);
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    const long available_pages = sysconf(_SC_AVPHYS_PAGES);
    const long page = sysconf(_SC_PAGESIZE);
    *total_bytes = physical_memory_bytes();
    *free_bytes = available_pages > 0 && page > 0
                      ? static_cast<std::size_t>(available_pages) * static_cast<std::size_t>(page)
                      : *total_bytes - std::min(*total_bytes, device_bytes_in_use());
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
    if (version == nullptr) return record_error(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int* version) { return cudaDriverGetVersion(version); }

namespace cpu_backend::detail {

cudaError_t set_function_attribute(const void* function, cudaFuncAttribute attribute, int value) {
    if (function == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
    if (attribute == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || static_cast<std::size_t>(value) > limits::shared_memory_per_block_optin)
            return record_error(cudaErrorInvalidValue);
        set_max_dynamic_shared_bytes(function, static_cast<std::size_t>(value));
        return cudaSuccess;
    }
    if (attribute == cudaFuncAttributePreferredSharedMemoryCarveout)
        return value >= -1 && value <= 100 ? cudaSuccess : record_error(cudaErrorInvalidValue);
    return record_error(cudaErrorInvalidValue);
}

cudaError_t get_function_attributes(cudaFuncAttributes* attributes, const void* function) {
    if (attributes == nullptr) return record_error(cudaErrorInvalidValue);
    if (function == nullptr) return record_error(cudaErrorInvalidDeviceFunction);
    std::memset(attributes, 0, sizeof *attributes);
    attributes->maxThreadsPerBlock = static_cast<int>(limits::max_threads_per_block);
    attributes->numRegs = 32;
    attributes->ptxVersion = limits::compute_major * 10 + limits::compute_minor;
    attributes->binaryVersion = attributes->ptxVersion;
    attributes->maxDynamicSharedSizeBytes = static_cast<int>(max_dynamic_shared_bytes(function));
    attributes->preferredShmemCarveout = -1;
    return cudaSuccess;
}

cudaError_t occupancy_max_active_blocks(int* blocks, int block_size, size_t dynamic_shared_bytes) {
    if (blocks == nullptr || block_size <= 0 || block_size > static_cast<int>(limits::max_threads_per_block))
        return record_error(cudaErrorInvalidValue);
    // Warps are allocated whole, as on a GPU.
    const int warps_per_block = (block_size + 31) / 32;
    int count = std::min(limits::max_blocks_per_multiprocessor,
                         limits::max_threads_per_multiprocessor / 32 / warps_per_block);
    const std::size_t shared_per_block = dynamic_shared_bytes + limits::reserved_shared_memory_per_block;
    count = std::min<int>(count, static_cast<int>(limits::shared_memory_per_multiprocessor / shared_per_block));
    *blocks = count;
    return cudaSuccess;
}

}  // namespace cpu_backend::detail

namespace cpu_backend {
const char* fiber_implementation() { return detail::fiber_implementation_name; }
}  // namespace cpu_backend
