// Warp intrinsics with 32 lanes and Volta-style _sync semantics.
#include <cuda_runtime.h>

#include <numeric>

#include "test_support.hpp"

namespace {

constexpr unsigned kFullMask = 0xffffffffu;

__device__ int lane_id() { return static_cast<int>(threadIdx.x % 32); }

__device__ int warp_inclusive_scan(int value) {
    for (int offset = 1; offset < 32; offset *= 2) {
        int neighbour = __shfl_up_sync(kFullMask, value, offset);
        if (lane_id() >= offset) value += neighbour;
    }
    return value;
}

__global__ void warp_scan_kernel(const int* in, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = warp_inclusive_scan(in[i]);
}

// A block scan built of warp scans: scan each warp, scan the warp totals
// with the first warp, add each warp's offset.
__global__ void block_scan_kernel(const int* in, int* out) {
    __shared__ int warp_totals[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = threadIdx.x / 32;
    int value = warp_inclusive_scan(in[i]);
    if (lane_id() == 31) warp_totals[warp] = value;
    __syncthreads();
    if (warp == 0) {
        int total = lane_id() < static_cast<int>(blockDim.x / 32) ? warp_totals[lane_id()] : 0;
        warp_totals[lane_id()] = warp_inclusive_scan(total);
    }
    __syncthreads();
    if (warp > 0) value += warp_totals[warp - 1];
    out[i] = value;
}

__global__ void shuffle_variants(int* out) {
    int lane = lane_id();
    out[lane] = __shfl_xor_sync(kFullMask, lane, 12, 8);
    out[32 + lane] = __shfl_up_sync(kFullMask, lane, 3, 8);
    out[64 + lane] = __shfl_down_sync(kFullMask, lane, 3, 8);
    out[96 + lane] = __shfl_sync(kFullMask, lane, lane + 5, 8);
    out[128 + lane] = __shfl_sync(kFullMask, lane, -1, 16);
    out[160 + lane] = __shfl_down_sync(kFullMask, lane, 16);
    out[192 + lane] = static_cast<int>(__shfl_sync(kFullMask, 1.5f * lane, 31 - lane));
    out[224 + lane] = static_cast<int>(__shfl_xor_sync(kFullMask, 1000000000000ll * lane, 1) / 1000000000000ll);
}

__global__ void votes(unsigned* out) {
    int lane = lane_id();
    out[0 * 32 + lane] = __ballot_sync(kFullMask, lane % 3 == 0);
    out[1 * 32 + lane] = __any_sync(kFullMask, lane == 17);
    out[2 * 32 + lane] = __all_sync(kFullMask, lane < 31);
    out[3 * 32 + lane] = __all_sync(kFullMask, lane < 32);
    out[4 * 32 + lane] = __match_any_sync(kFullMask, lane / 8);
    out[5 * 32 + lane] = __reduce_add_sync(kFullMask, static_cast<unsigned>(lane));
    out[6 * 32 + lane] = static_cast<unsigned>(__reduce_min_sync(kFullMask, 10 - lane));
    out[7 * 32 + lane] = __reduce_max_sync(kFullMask, static_cast<unsigned>(lane * 3));
}

// Only the lanes in the mask take part; the others are not waited for.
__global__ void partial_mask(int* out) {
    int lane = lane_id();
    if (lane < 16) {
        out[lane] = __shfl_down_sync(0x0000ffffu, lane * 10, 1, 16);
        __syncwarp(0x0000ffffu);
    } else {
        out[lane] = __ballot_sync(0xffff0000u, lane % 2 == 0) >> 16;
    }
}

__global__ void active_lanes(unsigned* out, int n) {
    int lane = lane_id();
    if (lane < n) out[lane] = __activemask();
    else out[lane] = 0;
}

// Warp-aggregated atomics: one atomicAdd per group of lanes with the same bin.
__global__ void warp_aggregated_histogram(const int* bins, int n, unsigned* histogram) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int bin = bins[i];
    unsigned peers = __match_any_sync(__activemask(), bin);
    int leader = __ffs(peers) - 1;
    if (lane_id() == leader) atomicAdd(&histogram[bin], static_cast<unsigned>(__popc(peers)));
}

__global__ void shuffle_with_exited_lane(int* out) {
    if (lane_id() == 8) return;
    out[lane_id()] = __shfl_down_sync(kFullMask, lane_id(), 1);
}

__global__ void mask_without_own_lane(int* out) { out[0] = __shfl_sync(0x2u, 1, 0); }

__global__ void mismatched_intrinsics(int* out) {
    if (lane_id() % 2 == 0)
        out[lane_id()] = __shfl_sync(kFullMask, 1, 0);
    else
        out[lane_id()] = static_cast<int>(__ballot_sync(kFullMask, 1));
}

__global__ void bit_operations(unsigned long long* out) {
    out[0] = static_cast<unsigned long long>(__popc(0xf0f0u));
    out[1] = static_cast<unsigned long long>(__popcll(0xffffffffffull));
    out[2] = static_cast<unsigned long long>(__ffs(0x50));
    out[3] = static_cast<unsigned long long>(__ffsll(1ll << 40));
    out[4] = static_cast<unsigned long long>(__clz(1));
    out[5] = static_cast<unsigned long long>(__clzll(1ll << 40));
    out[6] = __brev(1u);
    out[7] = static_cast<unsigned long long>(__ffs(0));
    out[8] = static_cast<unsigned long long>(__clz(0));
    out[9] = static_cast<unsigned long long>(min(3, 7) + max(3u, 7u));
    out[10] = static_cast<unsigned long long>(min(-1.5f, 2.0f) * -2.0f + max(2ll, -4ll));
}

class Warp : public CpuBackendTest {};

TEST_F(Warp, ShuffleUpInclusiveScanOf32Lanes) {
    std::vector<int> input(8 * 32);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int>(i * 7 % 11) - 5;
    device_array<int> in(input), out(input.size());
    warp_scan_kernel<<<2, 128>>>(in.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto result = out.download();
    for (std::size_t warp = 0; warp < 8; ++warp) {
        int running = 0;
        for (std::size_t lane = 0; lane < 32; ++lane) {
            running += input[warp * 32 + lane];
            ASSERT_EQ(running, result[warp * 32 + lane]) << "warp " << warp << " lane " << lane;
        }
    }
}

TEST_F(Warp, BlockScanBuiltOfWarpScans) {
    const int blocks = 32, threads = 1024;
    std::vector<int> input(blocks * threads);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<int>(i % 5);
    device_array<int> in(input), out(input.size());
    block_scan_kernel<<<blocks, threads>>>(in.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto result = out.download();
    for (int b = 0; b < blocks; ++b) {
        int running = 0;
        for (int t = 0; t < threads; ++t) {
            running += input[b * threads + t];
            ASSERT_EQ(running, result[b * threads + t]) << "block " << b << " thread " << t;
        }
    }
}

TEST_F(Warp, ShuffleVariantsFollowCudaLaneRulesIncludingWidth) {
    device_array<int> out(256);
    shuffle_variants<<<1, 32>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto r = out.download();
    for (int lane = 0; lane < 32; ++lane) {
        int segment = lane & ~7;
        int xor_source = lane ^ 12;
        EXPECT_EQ(xor_source > segment + 7 ? lane : xor_source, r[lane]) << lane;
        EXPECT_EQ(lane - 3 >= segment ? lane - 3 : lane, r[32 + lane]) << lane;
        EXPECT_EQ(lane + 3 <= segment + 7 ? lane + 3 : lane, r[64 + lane]) << lane;
        EXPECT_EQ(segment + ((lane + 5) & 7), r[96 + lane]) << lane;
        EXPECT_EQ((lane & ~15) + 15, r[128 + lane]) << lane;
        EXPECT_EQ(lane + 16 < 32 ? lane + 16 : lane, r[160 + lane]) << lane;
        EXPECT_EQ(static_cast<int>(1.5f * (31 - lane)), r[192 + lane]) << lane;
        EXPECT_EQ(lane ^ 1, r[224 + lane]) << lane;
    }
}

TEST_F(Warp, VotesMatchAndReductions) {
    device_array<unsigned> out(8 * 32);
    votes<<<1, 32>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto r = out.download();
    unsigned every_third = 0;
    for (int lane = 0; lane < 32; lane += 3) every_third |= 1u << lane;
    for (int lane = 0; lane < 32; ++lane) {
        EXPECT_EQ(every_third, r[lane]);
        EXPECT_EQ(1u, r[32 + lane]);
        EXPECT_EQ(0u, r[64 + lane]);
        EXPECT_EQ(1u, r[96 + lane]);
        EXPECT_EQ(0xffu << (lane / 8 * 8), r[128 + lane]);
        EXPECT_EQ(496u, r[160 + lane]);
        EXPECT_EQ(static_cast<unsigned>(10 - 31), r[192 + lane]);
        EXPECT_EQ(93u, r[224 + lane]);
    }
}

TEST_F(Warp, LanesOutsideTheMaskAreNotWaitedFor) {
    device_array<int> out(32);
    partial_mask<<<1, 32>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto r = out.download();
    for (int lane = 0; lane < 16; ++lane) EXPECT_EQ(lane < 15 ? (lane + 1) * 10 : lane * 10, r[lane]) << lane;
    for (int lane = 16; lane < 32; ++lane) EXPECT_EQ(0x5555u, static_cast<unsigned>(r[lane])) << lane;
}

TEST_F(Warp, ActivemaskNamesTheLanesInTheSameBranch) {
    device_array<unsigned> out(32);
    active_lanes<<<1, 32>>>(out.get(), 10);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto r = out.download();
    for (int lane = 0; lane < 32; ++lane) EXPECT_EQ(lane < 10 ? 0x3ffu : 0u, r[lane]) << lane;
}

TEST_F(Warp, WarpAggregatedAtomicsCountEveryElement) {
    const int n = 5000, bins = 16;
    std::vector<int> input(n);
    std::vector<unsigned> expected(bins, 0);
    for (int i = 0; i < n; ++i) {
        input[i] = (i * 7 + i / 13) % bins;
        ++expected[input[i]];
    }
    device_array<int> in(input);
    device_array<unsigned> histogram(bins);
    histogram.zero();
    warp_aggregated_histogram<<<(n + 255) / 256, 256>>>(in.get(), n, histogram.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(expected, histogram.download());
}

TEST_F(Warp, ReportsAShuffleWaitingForAnExitedLane) {
    device_array<int> out(32);
    shuffle_with_exited_lane<<<1, 32>>>(out.get());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(),
                    "thread 8 of block (0,0,0) (warp 0, lane 8) exited while 31 lanes of its warp (0-7,9-31) wait "
                    "for it in __shfl_down_sync with mask 0xffffffff");
}

TEST_F(Warp, ReportsAMaskThatLeavesOutTheCallingLane) {
    device_array<int> out(1);
    mask_without_own_lane<<<1, 1>>>(out.get());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "which does not include its own lane");
}

TEST_F(Warp, ReportsLanesCallingDifferentIntrinsicsTogether) {
    device_array<int> out(32);
    mismatched_intrinsics<<<1, 32>>>(out.get());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "disagree");
}

TEST_F(Warp, ReportsAFullMaskInAPartialWarp) {
    device_array<int> out(48);
    warp_scan_kernel<<<1, 48>>>(out.get(), out.get());
    EXPECT_EQ(cudaErrorLaunchFailure, cudaDeviceSynchronize());
    EXPECT_CONTAINS(cpu_backend::last_fault_message(), "lanes 16-31 of that warp do not exist");
}

TEST_F(Warp, BitOperationsAndMinMaxMatchCuda) {
    device_array<unsigned long long> out(11);
    bit_operations<<<1, 1>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto r = out.download();
    EXPECT_EQ(8u, r[0]);
    EXPECT_EQ(40u, r[1]);
    EXPECT_EQ(5u, r[2]);
    EXPECT_EQ(41u, r[3]);
    EXPECT_EQ(31u, r[4]);
    EXPECT_EQ(23u, r[5]);
    EXPECT_EQ(0x80000000u, r[6]);
    EXPECT_EQ(0u, r[7]);
    EXPECT_EQ(32u, r[8]);
    EXPECT_EQ(10u, r[9]);
    EXPECT_EQ(5u, r[10]);
}

}  // namespace
