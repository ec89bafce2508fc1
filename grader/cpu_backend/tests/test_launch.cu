// Launch syntax the transform must handle, and launch configurations a GPU
// rejects. This file includes no CUDA header on purpose: like nvcc, the
// build force-includes cuda_runtime.h.
#include <algorithm>
#include <utility>

#include "test_support.hpp"

namespace {

__global__ void set_value(int* out, int value) { out[blockIdx.x * blockDim.x + threadIdx.x] = value; }

template <class T, int kScale>
__global__ void scale(const T* in, T* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * kScale;
}

template <class T>
__global__ void add_deduced(T* data, T amount) {
    data[threadIdx.x] += amount;
}

__global__ void with_default(int* out, int value = 42) { out[threadIdx.x] = value; }

__global__ void overloaded(int* out) { out[0] = 1; }
__global__ void overloaded(float* out) { out[0] = 2.5f; }

namespace kernels {
namespace inner {
__global__ void qualified(int* out) { out[threadIdx.x] = 7; }
}  // namespace inner
}  // namespace kernels

// The parameter is a per-thread copy, as on a GPU.
__global__ void modifies_its_parameter(int* out, int value) {
    value += static_cast<int>(threadIdx.x);
    out[threadIdx.x] = value;
}

struct pair_argument {
    int a;
    int b;
};
__global__ void struct_argument(pair_argument p, int* out) { out[0] = p.a * 10 + p.b; }

__global__ void counts_runs(int* runs) { atomicAdd(runs, 1); }

#define LAUNCH_SET(out, value) \
    set_value<<<1, 32>>>(out, value)

class Launch : public CpuBackendTest {};

TEST_F(Launch, TemplatedKernelWithExplicitArguments) {
    std::vector<int> input(1000);
    for (int i = 0; i < 1000; ++i) input[i] = i;
    device_array<int> in(input), out(1000);
    scale<int, 3><<<(1000 + 127) / 128, 128>>>(in.get(), out.get(), 1000);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto result = out.download();
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(3 * i, result[i]);
}

TEST_F(Launch, TemplateArgumentsAreDeducedFromTheCall) {
    device_array<float> data(std::vector<float>(32, 1.0f));
    add_deduced<<<1, 32>>>(data.get(), 0.5f);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    for (float value : data.download()) ASSERT_EQ(1.5f, value);
}

TEST_F(Launch, DefaultArgumentsOverloadsAndQualifiedKernels) {
    device_array<int> out(32);
    device_array<float> out_float(1);
    with_default<<<1, 32>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(42, out.download()[5]);
    overloaded<<<1, 1>>>(out.get());
    overloaded<<<1, 1>>>(out_float.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(1, out.download()[0]);
    EXPECT_EQ(2.5f, out_float.download()[0]);
    kernels::inner::qualified<<<1, 32>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(7, out.download()[31]);
}

TEST_F(Launch, MultiLineLaunchWithNestedExpressionsAndAStream) {
    cudaStream_t stream;
    ASSERT_CUDA_SUCCESS(cudaStreamCreate(&stream));
    device_array<int> out(64);
    const std::pair<int, int> shape{2, 32};
    set_value<<<dim3(shape.first, 1, 1),  // the grid
                std::min<int>(shape.second, static_cast<int>(sizeof(std::pair<int, int>) * 8)),
                0, stream>>>(
        out.get(),
        std::max(3, (shape.first + shape.second) / 2));
    ASSERT_CUDA_SUCCESS(cudaStreamSynchronize(stream));
    for (int value : out.download()) ASSERT_EQ(17, value);
    ASSERT_CUDA_SUCCESS(cudaStreamDestroy(stream));
}

TEST_F(Launch, LaunchInsideAMacro) {
    device_array<int> out(32);
    LAUNCH_SET(out.get(), 5);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(5, out.download()[31]);
}

TEST_F(Launch, KernelThroughAFunctionPointer) {
    device_array<int> out(32);
    void (*kernel)(int*, int) = set_value;
    kernel<<<1, 32>>>(out.get(), 11);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(11, out.download()[0]);
}

TEST_F(Launch, ParametersAreCopiedPerThreadAndStructsPassByValue) {
    device_array<int> out(32);
    int value = 100;
    modifies_its_parameter<<<1, 32>>>(out.get(), value);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto result = out.download();
    for (int t = 0; t < 32; ++t) ASSERT_EQ(100 + t, result[t]);
    struct_argument<<<1, 1>>>(pair_argument{4, 2}, out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(42, out.download()[0]);
}

TEST_F(Launch, ImpossibleShapesFailAndTheKernelDoesNotRun) {
    device_array<int> runs(1);
    runs.zero();
    const std::pair<dim3, dim3> invalid[] = {
        {dim3(1), dim3(1025)},        {dim3(1), dim3(2048)},      {dim3(0), dim3(32)},
        {dim3(1), dim3(0)},           {dim3(1, 65536), dim3(32)}, {dim3(1), dim3(1, 1, 65)},
        {dim3(1), dim3(32, 32, 2)},   {dim3(1, 1, 0), dim3(1)},
    };
    for (const auto& [grid, block] : invalid) {
        counts_runs<<<grid, block>>>(runs.get());
        // CUDA 13 reports these as cudaErrorInvalidValue (older CUDA:
        // cudaErrorInvalidConfiguration).
        EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError())
            << grid.x << "x" << grid.y << "x" << grid.z << " / " << block.x << "x" << block.y << "x" << block.z;
        EXPECT_CUDA_SUCCESS(cudaGetLastError());  // not sticky
    }
    EXPECT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(0, runs.download()[0]);
    counts_runs<<<dim3(2, 2), dim3(32, 32)>>>(runs.get());
    EXPECT_CUDA_SUCCESS(cudaGetLastError());
    EXPECT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(4 * 1024, runs.download()[0]);
}

TEST_F(Launch, TooMuchDynamicSharedMemoryFails) {
    device_array<int> runs(1);
    runs.zero();
    counts_runs<<<1, 32, 48 * 1024 + 1>>>(runs.get());
    EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
    counts_runs<<<1, 32, 48 * 1024>>>(runs.get());
    EXPECT_CUDA_SUCCESS(cudaGetLastError());
    EXPECT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(32, runs.download()[0]);
}

TEST_F(Launch, ManyBlocksOnSeveralHostThreadsAllRun) {
    cpu_backend::set_host_threads(3);
    device_array<int> runs(1);
    runs.zero();
    counts_runs<<<dim3(100, 3, 2), 64>>>(runs.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(600 * 64, runs.download()[0]);
}

}  // namespace
