// Device memory: canary zones catch writes outside an allocation, copies
// are checked like the CUDA runtime checks them, symbols and vector types
// behave as on a GPU.
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "cpu_backend/control.hpp"
#include "test_support.hpp"

namespace {

__constant__ int lookup_table[8];
__device__ unsigned long long device_counter;

__global__ void write_at(int* data, int index, int value) { data[index] = value; }

__global__ void fill_range(int* data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) data[i] = i;  // off by one: also writes data[n]
}

__global__ void use_symbols(int* out) {
    out[threadIdx.x] = lookup_table[threadIdx.x] * 2;
    atomicAdd(&device_counter, 1ull);
}

__global__ void vector_loads(const int* in, int* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        int4 v = reinterpret_cast<const int4*>(in)[i];
        reinterpret_cast<int4*>(out)[i] = make_int4(v.w, v.z, v.y, v.x);
    }
}

__global__ void read_uninitialized(const int* in, int* out) { out[0] = in[0]; }

class Memory : public CpuBackendTest {};

TEST_F(Memory, ReportsAWriteOneElementPastTheEnd) {
    int* data = nullptr;
    ASSERT_CUDA_SUCCESS(cudaMalloc(&data, 1000 * sizeof(int)));
    fill_range<<<4, 256>>>(data, 1000);
    EXPECT_EQ(cudaErrorIllegalAddress, cudaDeviceSynchronize());
    const std::string message = cpu_backend::last_fault_message();
    EXPECT_CONTAINS(message, "just past the end of a 4000-byte cudaMalloc allocation");
    EXPECT_CONTAINS(message, "offsets 4000..4003");
    EXPECT_CONTAINS(message, "fill_range");
    EXPECT_EQ(cudaErrorIllegalAddress, cudaGetLastError());
}

TEST_F(Memory, ReportsAWriteBeforeTheStart) {
    int* data = nullptr;
    ASSERT_CUDA_SUCCESS(cudaMalloc(&data, 64 * sizeof(int)));
    write_at<<<1, 1>>>(data, -2, 42);
    EXPECT_EQ(cudaErrorIllegalAddress, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "before the start of a 256-byte cudaMalloc allocation");
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "offsets -8..-5");
}

TEST_F(Memory, HostWritePastTheEndIsCaughtByCudaFree) {
    int* data = nullptr;
    ASSERT_CUDA_SUCCESS(cudaMalloc(&data, 10 * sizeof(int)));
    data[10] = 7;  // device memory is host memory here
    EXPECT_EQ(cudaErrorIllegalAddress, cudaFree(data));
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "detected by cudaFree");
}

TEST_F(Memory, InBoundsWritesAreNotReported) {
    device_array<int> data(1000);
    fill_range<<<1, 999>>>(data.get(), 999);
    EXPECT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ("", cpu_backend::last_fault_message());
}

TEST_F(Memory, CopiesOutsideAnAllocationFailWithInvalidValue) {
    device_array<int> data(1024);
    std::vector<int> host(2048);
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(data.get(), host.data(), 8192, cudaMemcpyHostToDevice));
    EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
    EXPECT_CUDA_SUCCESS(cudaGetLastError());  // not sticky
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(host.data(), data.get() + 512, 4096, cudaMemcpyDeviceToHost));
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemset(data.get(), 0, 8192));
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(host.data(), host.data() + 1, 16, cudaMemcpyHostToDevice));
    EXPECT_EQ(cudaErrorInvalidValue, cudaFree(host.data()));
    EXPECT_EQ(cudaErrorInvalidValue, cudaFree(data.get() + 1));
    cudaGetLastError();
    EXPECT_CUDA_SUCCESS(cudaMemcpy(data.get() + 512, host.data(), 2048, cudaMemcpyHostToDevice));
    EXPECT_CUDA_SUCCESS(cudaMemcpy(data.get(), data.get() + 512, 2048, cudaMemcpyDeviceToDevice));
    EXPECT_CUDA_SUCCESS(cudaMemcpy(host.data(), data.get(), 4096, cudaMemcpyDefault));
    EXPECT_CUDA_SUCCESS(cudaDeviceSynchronize());
}

TEST_F(Memory, NewAllocationsAreNotZeroed) {
    device_array<int> data(4), out(1);
    read_uninitialized<<<1, 1>>>(data.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(-1, out.download()[0]);
}

TEST_F(Memory, AllocationsAreAligned) {
    for (std::size_t size : {1u, 3u, 255u, 256u, 1000u}) {
        void* p = nullptr;
        ASSERT_CUDA_SUCCESS(cudaMalloc(&p, size));
        EXPECT_EQ(0u, reinterpret_cast<std::uintptr_t>(p) % 256) << size;
        EXPECT_CUDA_SUCCESS(cudaFree(p));
    }
    void* none = reinterpret_cast<void*>(1);
    EXPECT_CUDA_SUCCESS(cudaMalloc(&none, 0));
    EXPECT_EQ(nullptr, none);
    EXPECT_CUDA_SUCCESS(cudaFree(nullptr));
}

TEST_F(Memory, ConstantAndDeviceSymbolsCopyBothWays) {
    int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    unsigned long long zero = 0;
    ASSERT_CUDA_SUCCESS(cudaMemcpyToSymbol(lookup_table, table, sizeof table));
    ASSERT_CUDA_SUCCESS(cudaMemcpyToSymbol(device_counter, &zero, sizeof zero));
    device_array<int> out(8);
    use_symbols<<<1, 8>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ((std::vector<int>{2, 4, 6, 8, 10, 12, 14, 16}), out.download());
    unsigned long long count = 0;
    ASSERT_CUDA_SUCCESS(cudaMemcpyFromSymbol(&count, device_counter, sizeof count));
    EXPECT_EQ(8u, count);
    int tail[2] = {0, 0};
    ASSERT_CUDA_SUCCESS(cudaMemcpyFromSymbol(tail, lookup_table, sizeof tail, 6 * sizeof(int)));
    EXPECT_EQ(7, tail[0]);
    EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbol(lookup_table, table, sizeof table, 4));
    void* address = nullptr;
    ASSERT_CUDA_SUCCESS(cudaGetSymbolAddress(&address, lookup_table));
    EXPECT_CUDA_SUCCESS(cudaMemcpy(address, table, sizeof table, cudaMemcpyHostToDevice));
}

TEST_F(Memory, VectorTypesHaveCudaSizesAndAlignment) {
    EXPECT_EQ(16u, sizeof(int4));
    EXPECT_EQ(16u, alignof(int4));
    EXPECT_EQ(16u, alignof(float4));
    EXPECT_EQ(16u, alignof(uint4));
    EXPECT_EQ(8u, alignof(int2));
    EXPECT_EQ(8u, alignof(float2));
    EXPECT_EQ(4u, alignof(char4));
    EXPECT_EQ(4u, alignof(uchar4));
    EXPECT_EQ(12u, sizeof(float3));
    uchar4 c = make_uchar4(1, 2, 3, 4);
    float2 f = make_float2(1.5f, 2.5f);
    EXPECT_EQ(10, c.x + c.y + c.z + c.w);
    EXPECT_EQ(4.0f, f.x + f.y);
}

TEST_F(Memory, ReinterpretedInt4LoadsMoveSixteenBytes) {
    const int n = 4096;
    std::vector<int> input(n);
    for (int i = 0; i < n; ++i) input[i] = i;
    device_array<int> in(input), out(n);
    vector_loads<<<(n / 4 + 127) / 128, 128>>>(in.get(), out.get(), n / 4);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto result = out.download();
    for (int i = 0; i < n; ++i) ASSERT_EQ(input[i / 4 * 4 + 3 - i % 4], result[i]) << i;
}

TEST_F(Memory, PinnedHostMemoryWorksAsACopyTarget) {
    int* pinned = nullptr;
    ASSERT_CUDA_SUCCESS(cudaMallocHost(&pinned, 64 * sizeof(int)));
    float* also_pinned = nullptr;
    ASSERT_CUDA_SUCCESS(cudaHostAlloc(&also_pinned, 16 * sizeof(float), cudaHostAllocDefault));
    device_array<int> data(64);
    for (int i = 0; i < 64; ++i) pinned[i] = i;
    EXPECT_CUDA_SUCCESS(cudaMemcpyAsync(data.get(), pinned, 64 * sizeof(int), cudaMemcpyHostToDevice));
    EXPECT_CUDA_SUCCESS(cudaMemsetAsync(data.get(), 0, 4));
    EXPECT_CUDA_SUCCESS(cudaStreamSynchronize(0));
    auto values = data.download();
    EXPECT_EQ(0, values[0]);
    EXPECT_EQ(63, values[63]);
    EXPECT_CUDA_SUCCESS(cudaFreeHost(pinned));
    EXPECT_CUDA_SUCCESS(cudaFreeHost(also_pinned));
    EXPECT_EQ(cudaErrorInvalidValue, cudaFreeHost(values.data()));
}

// Outside the grader's runner host memory the GPU can read is allowed, and recorded: the first
// call that made some, and the bytes each way (grader/runner reads them).
TEST_F(Memory, HostVisibleMemoryIsRecordedAndCopiesCounted) {
    int* pinned = nullptr;
    ASSERT_CUDA_SUCCESS(cudaMallocHost(&pinned, 64 * sizeof(int)));
    ASSERT_NE(nullptr, cpu_backend::host_memory_api());
    int* view = nullptr;
    EXPECT_CUDA_SUCCESS(cudaHostGetDevicePointer(&view, pinned, 0));
    EXPECT_EQ(pinned, view);
    int plain[4] = {};
    EXPECT_CUDA_SUCCESS(cudaHostRegister(plain, sizeof plain, cudaHostRegisterDefault));
    EXPECT_CUDA_SUCCESS(cudaHostUnregister(plain));
    const std::uint64_t before = cpu_backend::host_to_device_bytes();
    device_array<int> data(64);
    EXPECT_CUDA_SUCCESS(cudaMemcpy(data.get(), pinned, 64 * sizeof(int), cudaMemcpyHostToDevice));
    EXPECT_EQ(before + 64 * sizeof(int), cpu_backend::host_to_device_bytes());
    EXPECT_CUDA_SUCCESS(cudaFreeHost(pinned));
}

}  // namespace
