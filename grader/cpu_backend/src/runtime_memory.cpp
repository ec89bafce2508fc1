// cudaMalloc, cudaMemcpy, cudaMemset and the symbol copies. Device memory is
// host memory, so copies are memcpy; what remains is checking arguments the
// way the CUDA runtime does, so that a wrong size or direction fails here
// as it would on a GPU.
#include <cstring>

#include "cpu_backend/runtime_api.hpp"
#include "memory_registry.hpp"
#include "runtime_state.hpp"

using namespace cpu_backend::detail;

namespace {

// Where a copy's device-side pointer must point, for each direction.
bool device_side_valid(const void* pointer, std::size_t bytes) {
    return device_range_valid(pointer, bytes) || pinned_range_valid(pointer, bytes);
}

cudaError_t copy(void* dst, const void* src, std::size_t count, cudaMemcpyKind kind) {
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    if (count == 0) return cudaSuccess;
    if (dst == nullptr || src == nullptr) return record_error(cudaErrorInvalidValue);
    bool valid = true;
    switch (kind) {
        case cudaMemcpyHostToHost: break;
        case cudaMemcpyHostToDevice: valid = device_side_valid(dst, count); break;
        case cudaMemcpyDeviceToHost: valid = device_side_valid(src, count); break;
        case cudaMemcpyDeviceToDevice: valid = device_side_valid(dst, count) && device_side_valid(src, count); break;
        case cudaMemcpyDefault:
            // The direction follows from the pointers; a pointer into an
            // allocation must still fit inside it.
            if (is_device_pointer(dst)) valid = device_range_valid(dst, count);
            if (is_device_pointer(src)) valid = valid && device_range_valid(src, count);
            break;
        default: return record_error(cudaErrorInvalidMemcpyDirection);
    }
    if (!valid) return record_error(cudaErrorInvalidValue);
    const bool to_host = kind == cudaMemcpyDeviceToHost ||
                         (kind == cudaMemcpyDefault && is_device_pointer(src) && !is_device_pointer(dst));
    if (to_host) count_device_to_host_bytes(count);
    if (kind == cudaMemcpyHostToDevice ||
        (kind == cudaMemcpyDefault && is_device_pointer(dst) && !is_device_pointer(src))) {
        count_host_to_device_bytes(count);
    }
    std::memmove(dst, src, count);
    if (to_host) note_device_to_host_copy(dst, count);
    return cudaSuccess;
}

cudaError_t allocate_host(void** pointer, std::size_t size) {
    if (pointer == nullptr) return record_error(cudaErrorInvalidValue);
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    void* allocation = host_allocate(size);
    if (allocation == nullptr) return record_error(cudaErrorMemoryAllocation);
    *pointer = allocation;
    return cudaSuccess;
}

// A refused host-visible allocation is made all the same, so that code which ignores the error
// does not crash before the grader can say why the call failed (grader/runner/main.cu).
cudaError_t refused_after_all(cudaError_t verdict) {
    return verdict == cudaSuccess ? cudaSuccess : record_error(verdict);
}

}  // namespace

cudaError_t cudaMalloc(void** device_pointer, size_t size) {
    if (device_pointer == nullptr) return record_error(cudaErrorInvalidValue);
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    if (size == 0) {
        *device_pointer = nullptr;
        return cudaSuccess;
    }
    void* pointer = device_allocate(size);
    if (pointer == nullptr) return record_error(cudaErrorMemoryAllocation);
    *device_pointer = pointer;
    return cudaSuccess;
}

cudaError_t cudaMallocManaged(void** pointer, size_t size, unsigned int flags) {
    (void)flags;
    const cudaError_t verdict = host_visible_memory("cudaMallocManaged");
    const cudaError_t status = cudaMalloc(pointer, size);
    return status == cudaSuccess ? refused_after_all(verdict) : status;
}

cudaError_t cudaFree(void* device_pointer) {
    if (device_pointer == nullptr) return sticky_error_check();
    const bool freed = device_free(device_pointer);
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    return freed ? cudaSuccess : record_error(cudaErrorInvalidValue);
}

cudaError_t cudaMallocHost(void** pointer, size_t size) {
    const cudaError_t verdict = host_visible_memory("cudaMallocHost");
    const cudaError_t status = allocate_host(pointer, size);
    return status == cudaSuccess ? refused_after_all(verdict) : status;
}

cudaError_t cudaHostAlloc(void** pointer, size_t size, unsigned int flags) {
    (void)flags;
    const cudaError_t verdict = host_visible_memory("cudaHostAlloc");
    const cudaError_t status = allocate_host(pointer, size);
    return status == cudaSuccess ? refused_after_all(verdict) : status;
}

cudaError_t cudaFreeHost(void* pointer) {
    if (pointer == nullptr) return cudaSuccess;
    return host_free(pointer) ? cudaSuccess : record_error(cudaErrorInvalidValue);
}

// Registered host memory is the caller's own: only the check of who may make it visible.
cudaError_t cudaHostRegister(void* pointer, size_t size, unsigned int flags) {
    (void)flags;
    const cudaError_t verdict = host_visible_memory("cudaHostRegister");
    return pointer == nullptr || size == 0 ? record_error(cudaErrorInvalidValue) : refused_after_all(verdict);
}

cudaError_t cudaHostUnregister(void* pointer) {
    return pointer == nullptr ? record_error(cudaErrorInvalidValue) : cudaSuccess;
}

// Device memory is host memory: a pinned buffer's device address is its host address.
cudaError_t cudaHostGetDevicePointer(void** device_pointer, void* host_pointer, unsigned int flags) {
    (void)flags;
    const cudaError_t verdict = host_visible_memory("cudaHostGetDevicePointer");
    if (device_pointer == nullptr || !pinned_range_valid(host_pointer, 1)) return record_error(cudaErrorInvalidValue);
    *device_pointer = host_pointer;
    return refused_after_all(verdict);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
    return copy(dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
    (void)stream;
    return copy(dst, src, count, kind);
}

cudaError_t cudaMemset(void* device_pointer, int value, size_t count) {
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    if (count == 0) return cudaSuccess;
    if (!device_side_valid(device_pointer, count)) return record_error(cudaErrorInvalidValue);
    std::memset(device_pointer, value, count);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* device_pointer, int value, size_t count, cudaStream_t stream) {
    (void)stream;
    return cudaMemset(device_pointer, value, count);
}

namespace cpu_backend::detail {

cudaError_t copy_symbol(void* symbol, size_t symbol_size, void* other, size_t count, size_t offset, bool to_symbol) {
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    if (offset > symbol_size || count > symbol_size - offset) return record_error(cudaErrorInvalidValue);
    if (count == 0) return cudaSuccess;
    if (other == nullptr) return record_error(cudaErrorInvalidValue);
    char* inside = static_cast<char*>(symbol) + offset;
    if (to_symbol)
        std::memmove(inside, other, count);
    else
        std::memmove(other, inside, count);
    return cudaSuccess;
}

}  // namespace cpu_backend::detail
