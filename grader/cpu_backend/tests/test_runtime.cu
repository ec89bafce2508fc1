// The runtime API: device queries, errors, events, streams, and faults
// raised by device code.
#include <cuda_runtime.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "test_support.hpp"

namespace {

__global__ void busy(float* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = data[i];
        for (int k = 0; k < 100; ++k) x = x * 0.999f + 1.0f;
        data[i] = x;
    }
}

__global__ void traps_in_thread_3() {
    if (threadIdx.x == 3) __trap();
    __syncthreads();
}

#ifdef CUDA_CPU_BACKEND
// nvcc rejects both of these; on the CPU backend they must fail cleanly.
__global__ void throws_in_device_code() {
    if (blockIdx.x == 1 && threadIdx.x == 2) throw std::runtime_error("bad input");
}

__global__ void set_nothing(int* out) { (void)out; }

__global__ void launches_from_device(int* out) { set_nothing<<<1, 1>>>(out); }
#endif

__global__ void prints_from_device() {
    if (threadIdx.x == 0) printf("hello from block %d\n", static_cast<int>(blockIdx.x));
}

class Runtime : public CpuBackendTest {};

TEST_F(Runtime, ReportsOneDeviceWithPlausibleProperties) {
    int count = 0, device = -1;
    ASSERT_CUDA_SUCCESS(cudaGetDeviceCount(&count));
    EXPECT_EQ(1, count);
    ASSERT_CUDA_SUCCESS(cudaGetDevice(&device));
    EXPECT_EQ(0, device);
    EXPECT_CUDA_SUCCESS(cudaSetDevice(0));
    EXPECT_EQ(cudaErrorInvalidDevice, cudaSetDevice(1));
    cudaGetLastError();
    cudaDeviceProp prop;
    ASSERT_CUDA_SUCCESS(cudaGetDeviceProperties(&prop, 0));
    EXPECT_NE(nullptr, std::strstr(prop.name, "CPU backend"));
    EXPECT_EQ(48u * 1024u, prop.sharedMemPerBlock);
    EXPECT_EQ(227u * 1024u, prop.sharedMemPerBlockOptin);
    EXPECT_EQ(1024, prop.maxThreadsPerBlock);
    EXPECT_EQ(1024, prop.maxThreadsDim[0]);
    EXPECT_EQ(64, prop.maxThreadsDim[2]);
    EXPECT_EQ(2147483647, prop.maxGridSize[0]);
    EXPECT_EQ(65535, prop.maxGridSize[1]);
    EXPECT_EQ(32, prop.warpSize);
    EXPECT_EQ(static_cast<int>(cpu_backend::host_threads()), prop.multiProcessorCount);
    EXPECT_GT(prop.l2CacheSize, 0);
    EXPECT_GT(prop.memoryBusWidth, 0);
    EXPECT_GE(prop.major, 7);
}

TEST_F(Runtime, DeviceAttributesAgreeWithProperties) {
    cudaDeviceProp prop;
    ASSERT_CUDA_SUCCESS(cudaGetDeviceProperties(&prop, 0));
    int value = 0;
    ASSERT_CUDA_SUCCESS(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    EXPECT_EQ(static_cast<int>(prop.sharedMemPerBlockOptin), value);
    ASSERT_CUDA_SUCCESS(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0));
    EXPECT_EQ(prop.multiProcessorCount, value);
    // CUDA 13 dropped cudaDeviceProp::memoryClockRate; the attribute remains.
    ASSERT_CUDA_SUCCESS(cudaDeviceGetAttribute(&value, cudaDevAttrMemoryClockRate, 0));
    EXPECT_GT(value, 0);
    ASSERT_CUDA_SUCCESS(cudaDeviceGetAttribute(&value, cudaDevAttrGlobalMemoryBusWidth, 0));
    EXPECT_EQ(prop.memoryBusWidth, value);
    ASSERT_CUDA_SUCCESS(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 0));
    EXPECT_EQ(32, value);
    ASSERT_CUDA_SUCCESS(cudaDeviceGetAttribute(&value, cudaDevAttrComputeCapabilityMajor, 0));
    EXPECT_EQ(prop.major, value);
    int blocks = 0;
    ASSERT_CUDA_SUCCESS(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, busy, 256, 0));
    EXPECT_EQ(8, blocks);
    ASSERT_CUDA_SUCCESS(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, busy, 1024, 0));
    EXPECT_EQ(2, blocks);
    size_t free_bytes = 0, total_bytes = 0;
    ASSERT_CUDA_SUCCESS(cudaMemGetInfo(&free_bytes, &total_bytes));
    EXPECT_GT(total_bytes, 0u);
    EXPECT_LE(free_bytes, total_bytes);
}

TEST_F(Runtime, ErrorNamesAndStringsMatchCuda) {
    EXPECT_STREQ("no error", cudaGetErrorString(cudaSuccess));
    EXPECT_STREQ("invalid argument", cudaGetErrorString(cudaErrorInvalidValue));
    EXPECT_STREQ("invalid configuration argument", cudaGetErrorString(cudaErrorInvalidConfiguration));
    EXPECT_STREQ("unspecified launch failure", cudaGetErrorString(cudaErrorLaunchFailure));
    EXPECT_STREQ("an illegal memory access was encountered", cudaGetErrorString(cudaErrorIllegalAddress));
    EXPECT_STREQ("cudaErrorMemoryAllocation", cudaGetErrorName(cudaErrorMemoryAllocation));
    EXPECT_EQ(0, static_cast<int>(cudaSuccess));
    EXPECT_EQ(1, static_cast<int>(cudaErrorInvalidValue));
    EXPECT_EQ(2, static_cast<int>(cudaErrorMemoryAllocation));
    EXPECT_EQ(9, static_cast<int>(cudaErrorInvalidConfiguration));
    EXPECT_EQ(700, static_cast<int>(cudaErrorIllegalAddress));
    EXPECT_EQ(719, static_cast<int>(cudaErrorLaunchFailure));
}

TEST_F(Runtime, LastErrorIsClearedByGetButNotByPeek) {
    EXPECT_EQ(cudaErrorInvalidDevice, cudaSetDevice(3));
    EXPECT_EQ(cudaErrorInvalidDevice, cudaPeekAtLastError());
    EXPECT_EQ(cudaErrorInvalidDevice, cudaGetLastError());
    EXPECT_CUDA_SUCCESS(cudaGetLastError());
}

TEST_F(Runtime, EventsMeasureElapsedTime) {
    const int n = 1 << 16;
    device_array<float> data(std::vector<float>(n, 1.0f));
    cudaEvent_t start, stop;
    ASSERT_CUDA_SUCCESS(cudaEventCreate(&start));
    ASSERT_CUDA_SUCCESS(cudaEventCreate(&stop));
    float ms = -1.0f;
    EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaEventElapsedTime(&ms, start, stop));  // not recorded yet
    ASSERT_CUDA_SUCCESS(cudaEventRecord(start));
    busy<<<n / 256, 256>>>(data.get(), n);
    ASSERT_CUDA_SUCCESS(cudaEventRecord(stop, 0));
    ASSERT_CUDA_SUCCESS(cudaEventSynchronize(stop));
    ASSERT_CUDA_SUCCESS(cudaEventElapsedTime(&ms, start, stop));
    EXPECT_GE(ms, 0.0f);
    EXPECT_CUDA_SUCCESS(cudaEventQuery(stop));
    EXPECT_CUDA_SUCCESS(cudaEventDestroy(start));
    EXPECT_CUDA_SUCCESS(cudaEventDestroy(stop));
}

TEST_F(Runtime, TrapIsALaunchFailure) {
    traps_in_thread_3<<<2, 64>>>();
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "thread 3 of block");
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "executed __trap()");
}

#ifdef CUDA_CPU_BACKEND
TEST_F(Runtime, ExceptionEscapingAKernelIsALaunchFailure) {
    throws_in_device_code<<<3, 32>>>();
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(),
                    "thread 2 of block (1,0,0): a C++ exception escaped the kernel: bad input");
}
#endif

TEST_F(Runtime, DevicePrintfReachesStdout) {
    testing::internal::CaptureStdout();
    prints_from_device<<<2, 32>>>();
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    std::fflush(stdout);
    const std::string output = testing::internal::GetCapturedStdout();
    EXPECT_CONTAINS(output, "hello from block 0");
    EXPECT_CONTAINS(output, "hello from block 1");
}

#ifdef CUDA_CPU_BACKEND
__global__ void notes_where_it_runs(int* out) { out[blockIdx.x] = cpu_backend::in_kernel() ? 1 : 0; }

// What the grader's runner counts device printf by (grader/runner/device_output_cpu.cpp).
TEST_F(Runtime, KnowsWhetherDeviceCodeIsRunning) {
    device_array<int> out(2);
    EXPECT_FALSE(cpu_backend::in_kernel());
    notes_where_it_runs<<<2, 1>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    int host[2] = {};
    ASSERT_CUDA_SUCCESS(cudaMemcpy(host, out.get(), sizeof host, cudaMemcpyDeviceToHost));
    EXPECT_EQ(1, host[0]);
    EXPECT_EQ(1, host[1]);
    EXPECT_FALSE(cpu_backend::in_kernel());
}

TEST_F(Runtime, LaunchFromDeviceCodeIsReported) {
    device_array<int> out(1);
    launches_from_device<<<1, 1>>>(out.get());
    EXPECT_EQ(cudaErrorNotSupported, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "launching kernels from device code is not supported");
}
#endif

TEST_F(Runtime, ReportsTheFiberImplementation) {
    const std::string name = cpu_backend::fiber_implementation();
    EXPECT_TRUE(name == "x86-64 assembly" || name == "aarch64 assembly" || name == "Boost.Context fcontext" ||
                name == "ucontext")
        << name;
}

}  // namespace
