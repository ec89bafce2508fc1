// The schedule exposes races: a histogram kernel that forgets the barrier
// between zeroing its shared bins and counting into them gives a wrong
// answer under the default seed, a different one under other seeds, and the
// same one again for the same seed.
#include <cuda_runtime.h>

#include <cstdlib>
#include <set>
#include <string>

#include "test_support.hpp"

namespace {

constexpr int kBins = 256;
constexpr int kBlock = 1024;

template <bool kBarrierAfterZeroing>
__global__ void shared_histogram(const unsigned char* data, int n, unsigned* histogram) {
    __shared__ unsigned bins[kBins];
    if (threadIdx.x < kBins) bins[threadIdx.x] = 0;
    if (kBarrierAfterZeroing) __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[data[i]], 1u);
    __syncthreads();
    if (threadIdx.x < kBins) atomicAdd(&histogram[threadIdx.x], bins[threadIdx.x]);
}

std::vector<unsigned char> test_data(int n) {
    std::vector<unsigned char> data(n);
    unsigned state = 12345;
    for (auto& value : data) {
        state = state * 1103515245u + 12345u;
        value = static_cast<unsigned char>(state >> 16);
    }
    return data;
}

template <bool kBarrier>
std::vector<unsigned> run_histogram(const std::vector<unsigned char>& data) {
    device_array<unsigned char> in(data);
    device_array<unsigned> histogram(kBins);
    histogram.zero();
    shared_histogram<kBarrier><<<8, kBlock>>>(in.get(), static_cast<int>(data.size()), histogram.get());
    EXPECT_CUDA_SUCCESS(cudaDeviceSynchronize());
    return histogram.download();
}

std::vector<unsigned> reference_histogram(const std::vector<unsigned char>& data) {
    std::vector<unsigned> histogram(kBins, 0);
    for (unsigned char value : data) ++histogram[value];
    return histogram;
}

class Schedule : public CpuBackendTest {};

TEST_F(Schedule, MissingBarrierGivesAWrongHistogramUnderTheDefaultSeed) {
    auto data = test_data(1 << 16);
    EXPECT_NE(reference_histogram(data), run_histogram<false>(data));
}

TEST_F(Schedule, MissingBarrierResultVariesWithTheSeed) {
    auto data = test_data(1 << 16);
    std::set<std::vector<unsigned>> outcomes;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        cpu_backend::set_schedule_seed(seed);
        outcomes.insert(run_histogram<false>(data));
    }
    EXPECT_GE(outcomes.size(), 2u);
    EXPECT_EQ(0u, outcomes.count(reference_histogram(data)));
}

TEST_F(Schedule, SameSeedReproducesTheSameWrongAnswer) {
    auto data = test_data(1 << 16);
    // Each block's schedule depends only on the seed and the block index,
    // not on which of the host threads runs it.
    cpu_backend::set_host_threads(2);
    cpu_backend::set_schedule_seed(7);
    auto first = run_histogram<false>(data);
    auto second = run_histogram<false>(data);
    EXPECT_EQ(first, second);
}

TEST_F(Schedule, CorrectKernelIsExactUnderEverySeed) {
    auto data = test_data(1 << 16);
    for (std::uint64_t seed : {0ull, 1ull, 2ull, 3ull, 99ull}) {
        cpu_backend::set_schedule_seed(seed);
        EXPECT_EQ(reference_histogram(data), run_histogram<true>(data)) << "seed " << seed;
    }
}

// Run by meson with CUDA_CPU_BACKEND_SEED and CUDA_CPU_BACKEND_THREADS set,
// and EXPECTED_SEED / EXPECTED_THREADS telling what they were.
TEST(ScheduleEnvironment, SeedAndThreadCountComeFromTheEnvironment) {
    const char* seed = std::getenv("EXPECTED_SEED");
    const char* threads = std::getenv("EXPECTED_THREADS");
    if (seed == nullptr || threads == nullptr) GTEST_SKIP() << "run through meson test to set the environment";
    EXPECT_EQ(std::strtoull(seed, nullptr, 0), cpu_backend::schedule_seed());
    EXPECT_EQ(std::strtoul(threads, nullptr, 0), cpu_backend::host_threads());
}

}  // namespace
