// threadIdx/blockIdx/blockDim/gridDim in 1, 2 and 3 dimensions, dim3, and
// warps formed from the linear thread index.
#include <cuda_runtime.h>

#include "test_support.hpp"

namespace {

__global__ void record_1d(int* global_index, int* thread_of, int* block_of, int* dims) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    global_index[i] = i;
    thread_of[i] = threadIdx.x;
    block_of[i] = blockIdx.x;
    if (i == 0) {
        dims[0] = blockDim.x;
        dims[1] = gridDim.x;
        dims[2] = blockDim.y * blockDim.z * gridDim.y * gridDim.z;
        dims[3] = warpSize;
    }
}

__global__ void record_2d(int* out, int width) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * width + x] = y * 1000 + x;
}

__global__ void record_3d(unsigned* out) {
    unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    out[block * threads + thread] = (threadIdx.z << 24) | (threadIdx.y << 16) | (threadIdx.x << 8) | blockIdx.z;
}

// Each thread reports which lanes of its warp agree it is in the same warp.
__global__ void record_warp_membership(unsigned* ballots) {
    unsigned linear = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    ballots[linear] = __ballot_sync(0xffffffffu, (linear / 32) % 2 == 0) ^ __ballot_sync(0xffffffffu, 1);
}

class Indexing : public CpuBackendTest {};

TEST_F(Indexing, Dim3ConstructorsDefaultMissingComponentsToOne) {
    dim3 g(4);
    dim3 b(16, 16);
    dim3 all;
    EXPECT_EQ(4u, g.x);
    EXPECT_EQ(1u, g.y);
    EXPECT_EQ(1u, g.z);
    EXPECT_EQ(16u, b.y);
    EXPECT_EQ(1u, b.z);
    EXPECT_EQ(1u, all.x * all.y * all.z);
    uint3 u = b;
    EXPECT_EQ(16u, u.x);
}

TEST_F(Indexing, OneDimensionalGridGivesEveryThreadItsGlobalIndex) {
    const int blocks = 5, threads = 96;
    device_array<int> index(blocks * threads), thread_of(blocks * threads), block_of(blocks * threads), dims(4);
    record_1d<<<blocks, threads>>>(index.get(), thread_of.get(), block_of.get(), dims.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto i = index.download(), t = thread_of.download(), b = block_of.download(), d = dims.download();
    for (int k = 0; k < blocks * threads; ++k) {
        ASSERT_EQ(k, i[k]);
        ASSERT_EQ(k % threads, t[k]);
        ASSERT_EQ(k / threads, b[k]);
    }
    EXPECT_EQ(threads, d[0]);
    EXPECT_EQ(blocks, d[1]);
    EXPECT_EQ(1, d[2]);
    EXPECT_EQ(32, d[3]);
}

TEST_F(Indexing, TwoDimensionalGridCoversTheWholeImage) {
    const int width = 64, height = 48;
    device_array<int> out(width * height);
    dim3 block(16, 8);
    dim3 grid(width / block.x, height / block.y);
    record_2d<<<grid, block>>>(out.get(), width);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto values = out.download();
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) ASSERT_EQ(y * 1000 + x, values[y * width + x]) << x << "," << y;
}

TEST_F(Indexing, ThreeDimensionalBlocksLinearizeWithXFastest) {
    dim3 block(4, 3, 2);
    dim3 grid(2, 2, 3);
    const unsigned threads = 24, blocks = 12;
    device_array<unsigned> out(threads * blocks);
    record_3d<<<grid, block>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto values = out.download();
    for (unsigned b = 0; b < blocks; ++b) {
        for (unsigned t = 0; t < threads; ++t) {
            unsigned x = t % 4, y = (t / 4) % 3, z = t / 12;
            ASSERT_EQ((z << 24) | (y << 16) | (x << 8) | (b / 4), values[b * threads + t]);
        }
    }
}

TEST_F(Indexing, WarpsAreFormedFromTheLinearThreadIndex) {
    // A 16x8 block: warp 0 is rows 0-1, warp 1 rows 2-3, ... (x fastest).
    device_array<unsigned> ballots(128);
    record_warp_membership<<<1, dim3(16, 8)>>>(ballots.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto values = ballots.download();
    for (unsigned t = 0; t < 128; ++t) {
        // Within one warp every lane has the same parity of warp index, so
        // the first ballot is all-ones or all-zeros.
        ASSERT_TRUE(values[t] == 0u || values[t] == 0xffffffffu) << t;
        ASSERT_EQ((t / 32) % 2 == 0 ? 0u : 0xffffffffu, values[t]) << t;
    }
}

}  // namespace
