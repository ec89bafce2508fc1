// The CUDA runtime API functions the workbook uses, implemented on the host.
// Device memory is ordinary host memory (with canary zones around every
// cudaMalloc allocation), every launch runs to completion before it returns,
// and streams and events exist only for API compatibility; events read the
// host's steady clock.
#pragma once

#include <cstddef>

#include "runtime_types.hpp"

// ---- errors ----
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char* cudaGetErrorString(cudaError_t error);
const char* cudaGetErrorName(cudaError_t error);

// ---- device management ----
cudaError_t cudaGetDeviceCount(int* count);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device);
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache config);
cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes);
cudaError_t cudaDriverGetVersion(int* version);
cudaError_t cudaRuntimeGetVersion(int* version);

// ---- memory ----
cudaError_t cudaMalloc(void** device_pointer, size_t size);
cudaError_t cudaMallocManaged(void** pointer, size_t size, unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaFree(void* device_pointer);
cudaError_t cudaMallocHost(void** pointer, size_t size);
cudaError_t cudaHostAlloc(void** pointer, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void* pointer);
cudaError_t cudaHostRegister(void* pointer, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void* pointer);
cudaError_t cudaHostGetDevicePointer(void** device_pointer, void* host_pointer, unsigned int flags);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemset(void* device_pointer, int value, size_t count);
cudaError_t cudaMemsetAsync(void* device_pointer, int value, size_t count, cudaStream_t stream = 0);

template <class T>
cudaError_t cudaMalloc(T** device_pointer, size_t size) {
    return cudaMalloc(reinterpret_cast<void**>(device_pointer), size);
}
template <class T>
cudaError_t cudaMallocManaged(T** pointer, size_t size, unsigned int flags = cudaMemAttachGlobal) {
    return cudaMallocManaged(reinterpret_cast<void**>(pointer), size, flags);
}
template <class T>
cudaError_t cudaMallocHost(T** pointer, size_t size) {
    return cudaMallocHost(reinterpret_cast<void**>(pointer), size);
}
template <class T>
cudaError_t cudaHostGetDevicePointer(T** device_pointer, void* host_pointer, unsigned int flags) {
    return cudaHostGetDevicePointer(reinterpret_cast<void**>(device_pointer), host_pointer, flags);
}
template <class T>
cudaError_t cudaHostAlloc(T** pointer, size_t size, unsigned int flags) {
    return cudaHostAlloc(reinterpret_cast<void**>(pointer), size, flags);
}

namespace cpu_backend::detail {
cudaError_t copy_symbol(void* symbol, size_t symbol_size, void* other, size_t count, size_t offset,
                        bool to_symbol);
cudaError_t set_function_attribute(const void* function, cudaFuncAttribute attribute, int value);
cudaError_t get_function_attributes(cudaFuncAttributes* attributes, const void* function);
cudaError_t occupancy_max_active_blocks(int* blocks, int block_size, size_t dynamic_shared_bytes);
void register_symbol(const void* address, size_t bytes);
}  // namespace cpu_backend::detail

// __constant__ and __device__ variables are ordinary host globals, so the
// symbol functions copy to and from the variable itself.
template <class T>
cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    (void)kind;
    return cpu_backend::detail::copy_symbol(const_cast<T*>(&symbol), sizeof(T), const_cast<void*>(src),
                                            count, offset, true);
}
template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    (void)kind;
    return cpu_backend::detail::copy_symbol(const_cast<T*>(&symbol), sizeof(T), dst, count, offset, false);
}
template <class T>
cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                    cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0) {
    (void)stream;
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T>
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0) {
    (void)stream;
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
template <class T>
cudaError_t cudaGetSymbolAddress(void** device_pointer, const T& symbol) {
    if (device_pointer == nullptr) return cudaErrorInvalidValue;
    // Registered so that cudaMemcpy accepts the address as device memory.
    cpu_backend::detail::register_symbol(&symbol, sizeof(T));
    *device_pointer = const_cast<T*>(&symbol);
    return cudaSuccess;
}

// ---- kernel attributes and occupancy ----
template <class T>
cudaError_t cudaFuncSetAttribute(T* kernel, cudaFuncAttribute attribute, int value) {
    return cpu_backend::detail::set_function_attribute(reinterpret_cast<const void*>(kernel), attribute, value);
}
template <class T>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, T* kernel) {
    return cpu_backend::detail::get_function_attributes(attributes, reinterpret_cast<const void*>(kernel));
}
template <class T>
cudaError_t cudaFuncSetCacheConfig(T* kernel, cudaFuncCache config) {
    (void)kernel;
    (void)config;
    return cudaSuccess;
}
template <class T>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, T kernel, int block_size,
                                                         size_t dynamic_shared_bytes) {
    (void)kernel;
    return cpu_backend::detail::occupancy_max_active_blocks(blocks, block_size, dynamic_shared_bytes);
}

// ---- streams and events ----
cudaError_t cudaStreamCreate(cudaStream_t* stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaEventCreate(cudaEvent_t* event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float* milliseconds, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);
