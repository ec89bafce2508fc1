// CUDA's qualifiers, attributes, pragmas and device-side library calls
// compile and mean what they mean on a GPU.
#include <cuda_runtime.h>

#include <cassert>
#include <memory>

#include "test_support.hpp"

namespace {

struct __align__(16) aligned_pair {
    float first;
    float second;
};

__constant__ float coefficients[4] = {1.0f, 2.0f, 3.0f, 4.0f};
__device__ int device_calls;

__host__ __device__ __forceinline__ int square(int x) { return x * x; }
__device__ __noinline__ int cube(int x) { return x * square(x); }

__global__ void __launch_bounds__(256, 2)
    uses_qualifiers(const float* __restrict__ in, float* __restrict__ out, aligned_pair* pairs) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(threadIdx.x < blockDim.x);
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) sum += coefficients[k] * __ldg(&in[i]);
    out[i] = sum + static_cast<float>(cube(2));
    pairs[i] = aligned_pair{sum, static_cast<float>(square(3))};
    atomicAdd(&device_calls, 1);
}


class Qualifiers : public CpuBackendTest {};

TEST_F(Qualifiers, KernelWithEveryQualifierRuns) {
    static_assert(alignof(aligned_pair) == 16, "__align__ must align");
    const int n = 512;
    device_array<float> in(std::vector<float>(n, 0.5f)), out(n);
    device_array<aligned_pair> pairs(n);
    int zero = 0;
    ASSERT_CUDA_SUCCESS(cudaMemcpyToSymbol(device_calls, &zero, sizeof zero));
    uses_qualifiers<<<n / 256, 256>>>(in.get(), out.get(), pairs.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    for (float value : out.download()) ASSERT_EQ(5.0f + 8.0f, value);
    EXPECT_EQ(9.0f, pairs.download()[7].second);
    int calls = 0;
    ASSERT_CUDA_SUCCESS(cudaMemcpyFromSymbol(&calls, device_calls, sizeof calls));
    EXPECT_EQ(n, calls);
    EXPECT_EQ(16, square(4));  // __host__ __device__ functions run on the host too
    auto shared = std::make_shared<int>(3);  // <memory> still works after the qualifier macros
    EXPECT_EQ(3, *shared);
}

#ifndef NDEBUG
__global__ void failing_assert(int value) { assert(value == 0); }

void launch_failing_assert() {
    failing_assert<<<1, 1>>>(1);
    cudaDeviceSynchronize();
}

TEST_F(Qualifiers, DeviceAssertIsTheHostsAssert) {
    testing::FLAGS_gtest_death_test_style = "threadsafe";
    EXPECT_DEATH(launch_failing_assert(), "value == 0");
}
#endif

}  // namespace
