// __syncthreads() is a real barrier, and a barrier that some thread never
// reaches is reported instead of hanging.
#include <cuda_runtime.h>

#include <numeric>
#include <string>

#include "test_support.hpp"

namespace {

constexpr int kBlock = 1024;

// Reverses each block's slice through shared memory: correct only if every
// write happens before any read.
__global__ void reverse_block(const int* in, int* out) {
    __shared__ int tile[kBlock];
    int base = blockIdx.x * blockDim.x;
    tile[threadIdx.x] = in[base + threadIdx.x];
    __syncthreads();
    out[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

// Hillis-Steele inclusive scan of one 1024-element block: ~20 barriers.
__global__ void hillis_steele_scan(const int* in, int* out) {
    __shared__ int buffer[2][kBlock];
    int t = threadIdx.x, source = 0;
    buffer[0][t] = in[blockIdx.x * kBlock + t];
    __syncthreads();
    for (int offset = 1; offset < kBlock; offset *= 2) {
        int value = buffer[source][t];
        if (t >= offset) value += buffer[source][t - offset];
        buffer[1 - source][t] = value;
        source = 1 - source;
        __syncthreads();
    }
    out[blockIdx.x * kBlock + t] = buffer[source][t];
}

__global__ void barrier_reductions(const int* predicate, int* results) {
    int p = predicate[threadIdx.x];
    int count = __syncthreads_count(p);
    int all = __syncthreads_and(p);
    int any = __syncthreads_or(p);
    if (threadIdx.x == 0) {
        results[0] = count;
        results[1] = all;
        results[2] = any;
    }
}

__global__ void divergent_barrier(int* out) {
    if (threadIdx.x < 5) __syncthreads();
    out[threadIdx.x] = 1;
}

__global__ void early_return_before_barrier(int* out) {
    if (threadIdx.x == 5) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}

__global__ void fill(int* out, int value) { out[blockIdx.x * blockDim.x + threadIdx.x] = value; }

class Barrier : public CpuBackendTest {};

TEST_F(Barrier, OrdersSharedMemoryWritesBeforeReads) {
    const int blocks = 16;
    std::vector<int> input(blocks * kBlock);
    std::iota(input.begin(), input.end(), 0);
    device_array<int> in(input), out(input.size());
    reverse_block<<<blocks, kBlock>>>(in.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto result = out.download();
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < kBlock; ++t) ASSERT_EQ(input[b * kBlock + kBlock - 1 - t], result[b * kBlock + t]);
}

TEST_F(Barrier, WorksInsideLoopsForABlockScan) {
    const int blocks = 64;
    std::vector<int> input(blocks * kBlock);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int>(i % 7) - 3;
    device_array<int> in(input), out(input.size());
    hillis_steele_scan<<<blocks, kBlock>>>(in.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto result = out.download();
    for (int b = 0; b < blocks; ++b) {
        int running = 0;
        for (int t = 0; t < kBlock; ++t) {
            running += input[b * kBlock + t];
            ASSERT_EQ(running, result[b * kBlock + t]) << "block " << b << " thread " << t;
        }
    }
}

TEST_F(Barrier, CountAndOrVariantsCombinePredicates) {
    std::vector<int> some(256, 0), none(256, 0), all(256, 1);
    for (int i = 0; i < 256; i += 3) some[i] = 1;
    device_array<int> results(3);
    for (auto* predicates : {&some, &none, &all}) {
        device_array<int> in(*predicates);
        barrier_reductions<<<1, 256>>>(in.get(), results.get());
        ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
        auto r = results.download();
        int expected = std::accumulate(predicates->begin(), predicates->end(), 0);
        EXPECT_EQ(expected, r[0]);
        EXPECT_EQ(expected == 256 ? 1 : 0, r[1]);
        EXPECT_EQ(expected > 0 ? 1 : 0, r[2]);
    }
}

TEST_F(Barrier, ReportsDivergentBarrierInsteadOfHanging) {
    device_array<int> out(kBlock);
    divergent_barrier<<<1, kBlock>>>(out.get());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "thread 5 of block (0,0,0) exited while 5 threads wait at __syncthreads()");
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "divergent_barrier");
}

TEST_F(Barrier, ReportsAThreadThatReturnsBeforeTheBarrier) {
    device_array<int> out(kBlock);
    early_return_before_barrier<<<1, kBlock>>>(out.get());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "thread 5 of block (0,0,0) exited while 1023 threads wait at __syncthreads()");
}

TEST_F(Barrier, FaultIsStickyUntilDeviceReset) {
    device_array<int> out(kBlock);
    divergent_barrier<<<1, kBlock>>>(out.get());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaGetLastError());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaGetLastError());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    int* other = nullptr;
    EXPECT_EQ(cudaErrorLaunchFailure, cudaMalloc(&other, 16));
    // A faulted context runs nothing more.
    fill<<<1, 32>>>(out.get(), 7);
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
}

TEST_F(Barrier, NextLaunchAfterDeviceResetWorks) {
    {
        device_array<int> out(kBlock);
        divergent_barrier<<<1, kBlock>>>(out.get());
        EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    }
    ASSERT_CUDA_SUCCESS(cudaDeviceReset());
    EXPECT_CUDA_SUCCESS(cudaGetLastError());
    EXPECT_EQ("", cpu_backend::last_fault_message());
    device_array<int> out(4 * 256);
    fill<<<4, 256>>>(out.get(), 7);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    for (int value : out.download()) ASSERT_EQ(7, value);
}

TEST_F(Barrier, FaultedLaunchStopsLaterBlocks) {
    // Many blocks, every one divergent: the launch still returns promptly.
    device_array<int> out(kBlock);
    divergent_barrier<<<10000, kBlock>>>(out.get());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
}

}  // namespace
