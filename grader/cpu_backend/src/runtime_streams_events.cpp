// Streams and events. Every launch and copy completes before it returns, so
// streams only need to exist; events record the host's steady clock, which
// around a launch measures the kernel's (CPU) run time.
#include <chrono>

#include "cpu_backend/runtime_api.hpp"
#include "memory_registry.hpp"
#include "runtime_state.hpp"

using namespace cpu_backend::detail;

struct CUstream_st {
    unsigned int flags;
};

struct CUevent_st {
    unsigned int flags;
    bool recorded;
    std::chrono::steady_clock::time_point time;
};

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    if (stream == nullptr) return record_error(cudaErrorInvalidValue);
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    *stream = new CUstream_st{flags};
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
        return record_error(cudaErrorInvalidResourceHandle);
    delete stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    (void)stream;
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    check_all_canaries("at cudaStreamSynchronize");
    return sticky_error_check();
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    (void)stream;
    return sticky_error_check();
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    (void)stream;
    (void)flags;
    if (event == nullptr) return record_error(cudaErrorInvalidResourceHandle);
    return sticky_error_check();
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, cudaEventDefault); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    if (event == nullptr) return record_error(cudaErrorInvalidValue);
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    *event = new CUevent_st{flags, false, {}};
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    (void)stream;
    if (event == nullptr) return record_error(cudaErrorInvalidResourceHandle);
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    event->recorded = true;
    event->time = std::chrono::steady_clock::now();
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (event == nullptr) return record_error(cudaErrorInvalidResourceHandle);
    return sticky_error_check();
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (event == nullptr) return record_error(cudaErrorInvalidResourceHandle);
    return sticky_error_check();
}

cudaError_t cudaEventElapsedTime(float* milliseconds, cudaEvent_t start, cudaEvent_t end) {
    if (milliseconds == nullptr) return record_error(cudaErrorInvalidValue);
    if (start == nullptr || end == nullptr) return record_error(cudaErrorInvalidResourceHandle);
    if (cudaError_t sticky = sticky_error_check()) return sticky;
    if ((start->flags | end->flags) & cudaEventDisableTiming) return record_error(cudaErrorInvalidResourceHandle);
    if (!start->recorded || !end->recorded) return record_error(cudaErrorInvalidResourceHandle);
    *milliseconds = std::chrono::duration<float, std::milli>(end->time - start->time).count();
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (event == nullptr) return record_error(cudaErrorInvalidResourceHandle);
    delete event;
    return cudaSuccess;
}
