// Static and dynamic shared memory: sized by the launch, aligned, private to
// each block even while blocks run concurrently on several host threads.
#include <cuda_runtime.h>

#include <cstdint>

#include "test_support.hpp"

namespace {

// Two blocks that run at the same time (one per host thread) each store
// their index in shared memory, wait until the other block has stored its
// own, and check their value survived. With shared memory common to the
// blocks the second store would overwrite the first.
__global__ void static_shared_is_private(int* arrived, int* ok) {
    __shared__ int owner[64];
    owner[threadIdx.x] = static_cast<int>(blockIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(arrived, 1);
        for (long spin = 0; atomicAdd(arrived, 0) < static_cast<int>(gridDim.x) && spin < 100000000; ++spin) {
        }
    }
    __syncthreads();
    ok[blockIdx.x * blockDim.x + threadIdx.x] = owner[threadIdx.x] == static_cast<int>(blockIdx.x);
}

__global__ void dynamic_shared_is_private(int* arrived, int* ok) {
    extern __shared__ int owner_dynamic[];
    owner_dynamic[threadIdx.x] = static_cast<int>(blockIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicAdd(arrived, 1);
        for (long spin = 0; atomicAdd(arrived, 0) < static_cast<int>(gridDim.x) && spin < 100000000; ++spin) {
        }
    }
    __syncthreads();
    ok[blockIdx.x * blockDim.x + threadIdx.x] = owner_dynamic[threadIdx.x] == static_cast<int>(blockIdx.x);
}

// The classic reduction with a dynamically sized shared buffer.
template <class T>
__global__ void reduce_sum(const T* in, T* out) {
    extern __shared__ __align__(16) unsigned char scratch[];
    T* partial = reinterpret_cast<T*>(scratch);
    unsigned t = threadIdx.x;
    partial[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride) partial[t] += partial[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = partial[0];
}

__global__ void report_alignment(std::uintptr_t* out) {
    extern __shared__ float4 aligned_buffer[];
    out[0] = reinterpret_cast<std::uintptr_t>(aligned_buffer);
}

__global__ void large_dynamic_shared(int* out, int count) {
    extern __shared__ int big_buffer[];
    for (int i = threadIdx.x; i < count; i += blockDim.x) big_buffer[i] = i;
    __syncthreads();
    if (threadIdx.x == 0) out[0] = big_buffer[count - 1];
}

__global__ void overflow_dynamic_shared(int count) {
    extern __shared__ int small_buffer[];
    small_buffer[count] = 1;
}

__device__ int* shared_scratch_in_helper() {
    __shared__ int helper_scratch[32];
    return helper_scratch;
}

__global__ void shared_in_device_function(int* out) {
    int* scratch = shared_scratch_in_helper();
    scratch[threadIdx.x] = static_cast<int>(threadIdx.x * blockIdx.x);
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x] = scratch[31 - threadIdx.x];
}

class SharedMemory : public CpuBackendTest {};

TEST_F(SharedMemory, StaticSharedMemoryIsPrivatePerBlockUnderConcurrency) {
    cpu_backend::set_host_threads(2);
    device_array<int> arrived(1), ok(2 * 64);
    arrived.zero();
    static_shared_is_private<<<2, 64>>>(arrived.get(), ok.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    ASSERT_EQ(2, arrived.download()[0]);
    for (int value : ok.download()) ASSERT_EQ(1, value);
}

TEST_F(SharedMemory, DynamicSharedMemoryIsPrivatePerBlockUnderConcurrency) {
    cpu_backend::set_host_threads(2);
    device_array<int> arrived(1), ok(2 * 64);
    arrived.zero();
    dynamic_shared_is_private<<<2, 64, 64 * sizeof(int)>>>(arrived.get(), ok.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    for (int value : ok.download()) ASSERT_EQ(1, value);
}

TEST_F(SharedMemory, DynamicSharedMemoryIsSizedByTheLaunch) {
    const int blocks = 40, threads = 256;
    std::vector<double> input(blocks * threads);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<double>(i % 17);
    device_array<double> in(input), out(blocks);
    reduce_sum<double><<<blocks, threads, threads * sizeof(double)>>>(in.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto sums = out.download();
    for (int b = 0; b < blocks; ++b) {
        double expected = 0;
        for (int t = 0; t < threads; ++t) expected += input[b * threads + t];
        EXPECT_EQ(expected, sums[b]);
    }
}

TEST_F(SharedMemory, DynamicSharedMemoryIsAlignedToAtLeast16Bytes) {
    device_array<std::uintptr_t> address(1);
    report_alignment<<<1, 1, 64>>>(address.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(0u, address.download()[0] % 16);
}

TEST_F(SharedMemory, MoreThan48KiBNeedsTheFunctionAttribute) {
    const int count = 100 * 1024 / 4;
    device_array<int> out(1);
    large_dynamic_shared<<<1, 256, count * sizeof(int)>>>(out.get(), count);
    EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
    ASSERT_CUDA_SUCCESS(cudaFuncSetAttribute(large_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             count * sizeof(int)));
    large_dynamic_shared<<<1, 256, count * sizeof(int)>>>(out.get(), count);
    ASSERT_CUDA_SUCCESS(cudaGetLastError());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(count - 1, out.download()[0]);
    // Beyond the opt-in maximum of the device, the attribute is refused.
    EXPECT_EQ(cudaErrorInvalidValue,
              cudaFuncSetAttribute(large_dynamic_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024));
}

TEST_F(SharedMemory, ReportsAWritePastTheEndOfDynamicSharedMemory) {
    overflow_dynamic_shared<<<1, 1, 16 * sizeof(int)>>>(16);
    EXPECT_EQ(cudaErrorIllegalAddress, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(),
                    "wrote past the end of its 64 bytes of dynamic shared memory");
}

TEST_F(SharedMemory, SharedVariablesInDeviceFunctionsArePerBlock) {
    const int blocks = 50;
    device_array<int> out(blocks * 32);
    shared_in_device_function<<<blocks, 32>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto values = out.download();
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < 32; ++t) ASSERT_EQ((31 - t) * b, values[b * 32 + t]);
}

}  // namespace
