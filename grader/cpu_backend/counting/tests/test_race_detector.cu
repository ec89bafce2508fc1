// The race detector's rules (README.md of the CPU backend, "Race detector"), kernel by kernel:
// what races, what orders, what a witness names. Built in counting mode (this folder's
// meson.build); every test runs with detection on and reads races() after its launches.
#include <cuda_runtime.h>

#include <fstream>
#include <string>
#include <vector>

#include "race_test_support.hpp"

namespace {

// ---- shared memory ----

__global__ void plain_increment(int* out) {
    __shared__ int s_bins[4];
    if (threadIdx.x < 4) s_bins[threadIdx.x] = 0;
    __syncthreads();                // MARK zeroed
    s_bins[threadIdx.x % 2 + 1]++;  // MARK increment
    __syncthreads();                // MARK merged
    if (threadIdx.x < 4) out[threadIdx.x] = s_bins[threadIdx.x];
}

__global__ void atomic_increment(int* out) {
    __shared__ int s_bins[4];
    if (threadIdx.x < 4) s_bins[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&s_bins[threadIdx.x % 4], 1);
    atomicAdd(&out[threadIdx.x % 4], 1);
    __syncthreads();
    if (threadIdx.x < 4) atomicAdd(&out[threadIdx.x], s_bins[threadIdx.x]);
}

// Reads its neighbour's element: with the barrier, ordered; without, a race.
template <bool kBarrier>
__global__ void neighbour(int* out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;  // MARK neighbour write
    if (kBarrier) __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[(threadIdx.x + 1) % blockDim.x];  // MARK neighbour read
}

// Lanes exchange through shared memory: __syncwarp() orders them, a shuffle does not.
template <int kHow>  // 0: __syncwarp(), 1: __shfl_sync(), 2: __syncwarp() but the partner is in the other warp
__global__ void through_the_warp(int* out) {
    __shared__ int s[64];
    s[threadIdx.x] = threadIdx.x;
    if (kHow == 1) {
        out[threadIdx.x + 64] = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x), 0);
    } else {
        __syncwarp();
    }
    const unsigned partner = kHow == 2 ? (threadIdx.x + 32) % 64 : threadIdx.x ^ 1u;
    out[threadIdx.x] = s[partner];
}

// Every lane of a warp stores 1 to one flag: one store of the warp (given code marks warps so).
template <bool kTwoWarps>
__global__ void flags(int* d_flags) {
    if (kTwoWarps || threadIdx.x < 32) d_flags[0] = 1;
}

// volatile shared memory is plain: still a race between warps.
__global__ void volatile_shared(int* out) {
    __shared__ int s[64];
    volatile int* v = s;
    v[threadIdx.x] = threadIdx.x;
    out[threadIdx.x] = v[(threadIdx.x + 32) % 64];
}

__global__ void uninitialised(int* out) {
    __shared__ int s_never[32];
    if (out == nullptr) s_never[threadIdx.x] = 1;                       // never: but the compiler cannot fold the reads
    out[blockIdx.x * blockDim.x + threadIdx.x] = s_never[threadIdx.x];  // MARK uninitialised
}

__global__ void dynamic_uninitialised(int* out) {
    extern __shared__ int s_dynamic[];
    if (threadIdx.x > 0) s_dynamic[threadIdx.x] = 1;
    __syncthreads();
    out[threadIdx.x] = s_dynamic[threadIdx.x];
}

// ---- global memory ----

__global__ void every_block_writes(int* out) {
    if (threadIdx.x == 0) out[0] = blockIdx.x;  // MARK every block
}

// Block 0 publishes a flag; block 1 (run after it) reads it. Volatile accesses to global memory are
// strong: they do not race with each other, a plain one does.
template <bool kPlainReader>
__global__ void volatile_flag(int* d_flag, int* out) {
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        *reinterpret_cast<volatile int*>(d_flag) = 1;
    } else if constexpr (kPlainReader) {
        out[0] = *d_flag;
    } else {
        out[0] = *reinterpret_cast<volatile int*>(d_flag);
    }
}

// Message passing: block 0 writes data, fences, raises a flag; block 1 waits for the flag, fences,
// reads the data. kHow 0: both fences (ordered); 1: no fence in the reader; 2: block-scope fences
// (they do not reach another block).
template <int kHow>
__global__ void message(int* d_data, int* d_flag, int* out) {
    if (blockIdx.x == 0) {
        d_data[threadIdx.x] = threadIdx.x + 1;  // MARK message write
        __syncthreads();
        if (threadIdx.x == 0) {
            kHow == 2 ? __threadfence_block() : __threadfence();
            atomicExch(d_flag, 1);
        }
    } else {
        if (threadIdx.x == 0) {
            while (atomicAdd(d_flag, 0) == 0) {
            }
            if (kHow == 0) __threadfence();
            if (kHow == 2) __threadfence_block();
        }
        __syncthreads();
        out[threadIdx.x] = d_data[threadIdx.x];  // MARK message read
    }
}

// More global accesses than a launch keeps (8 million): its global memory goes unchecked, said so.
__global__ void many_reads(const int* in, long long n, int* out) {
  int sum = 0;
  for (long long i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  if (threadIdx.x == 0) out[0] = sum;  // a race between blocks, beyond what is kept
}

using RaceDetector = RaceTest;

TEST_F(RaceDetector, PlainIncrementOfASharedBinIsAWriteAfterWriteOnOneLine) {
    device_array<int> out(4);
    plain_increment<<<1, 64>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    const auto found = cpu_backend::counting::races();
    ASSERT_EQ(found.size(), 1u) << all(found);
    const auto& w = found[0];
    EXPECT_EQ(w.kind, cpu_backend::counting::race_kind::write_after_write);
    EXPECT_EQ(w.memory, "shared");
    EXPECT_EQ(w.array, "s_bins");
    EXPECT_TRUE(w.index == 1 || w.index == 2) << w.index;
    EXPECT_EQ(short_location(w.first.location), here("increment"));
    EXPECT_EQ(short_location(w.second.location), here("increment"));
    EXPECT_TRUE(w.first.read_modify_write);
    EXPECT_NE(w.first.thread_linear, w.second.thread_linear);
    EXPECT_EQ(short_location(w.first.barrier_before), here("zeroed"));
    EXPECT_EQ(short_location(w.first.barrier_after), here("merged"));
    EXPECT_EQ(w.first.warp, w.first.thread_linear / 32);
    EXPECT_EQ(w.first.lane, w.first.thread_linear % 32);
    EXPECT_CONTAINS(cpu_backend::counting::describe(w), "a plain read-modify-write");
    EXPECT_CONTAINS(cpu_backend::counting::races_json(found), "\"schema\": \"cpu-backend-races/v1\"");
}

TEST_F(RaceDetector, AtomicsDoNotRaceWithAtomics) {
    device_array<int> out(4);
    out.zero();
    atomic_increment<<<3, 64>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_NONE();
}

TEST_F(RaceDetector, ABarrierOrdersTheBlock) {
    device_array<int> out(128);
    neighbour<true><<<2, 64>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_NONE();
    neighbour<false><<<2, 64>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    const auto found = cpu_backend::counting::races();
    ASSERT_EQ(found.size(), 1u) << all(found);
    EXPECT_EQ(found[0].kind, cpu_backend::counting::race_kind::read_after_write);
    EXPECT_EQ(short_location(found[0].first.location), here("neighbour write"));
    EXPECT_EQ(short_location(found[0].second.location), here("neighbour read"));
    EXPECT_EQ(found[0].first.barrier_before, "");  // the kernel's start
}

TEST_F(RaceDetector, SyncwarpOrdersItsLanesOnly) {
    device_array<int> out(128);
    through_the_warp<0><<<1, 64>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_NONE();
    through_the_warp<1><<<1, 64>>>(out.get());  // a shuffle orders no memory
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(cpu_backend::counting::races().size(), 1u);
    cpu_backend::counting::clear_records();
    through_the_warp<2><<<1, 64>>>(out.get());  // the partner is in the other warp
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(cpu_backend::counting::races().size(), 1u);
}

TEST_F(RaceDetector, OneWarpStoringOneFlagIsOneStore) {
    device_array<int> d_flags(1);
    flags<false><<<1, 64>>>(d_flags.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_NONE();
    flags<true><<<1, 64>>>(d_flags.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    const auto found = cpu_backend::counting::races();
    ASSERT_EQ(found.size(), 1u) << all(found);
    EXPECT_EQ(found[0].kind, cpu_backend::counting::race_kind::write_after_write);
    EXPECT_NE(found[0].first.warp, found[0].second.warp);
}

TEST_F(RaceDetector, VolatileSharedMemoryIsPlain) {
    device_array<int> out(64);
    volatile_shared<<<1, 64>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(cpu_backend::counting::races().size(), 1u);
}

TEST_F(RaceDetector, ReadsOfSharedMemoryNobodyWroteAreReported) {
    device_array<int> out(64);
    uninitialised<<<2, 32>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    auto found = cpu_backend::counting::races();
    ASSERT_EQ(found.size(), 1u) << all(found);
    EXPECT_EQ(found[0].kind, cpu_backend::counting::race_kind::uninitialised_read);
    EXPECT_EQ(found[0].array, "s_never");
    EXPECT_EQ(short_location(found[0].first.location), here("uninitialised"));
    cpu_backend::counting::clear_records();
    dynamic_uninitialised<<<1, 32, 32 * sizeof(int)>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    found = cpu_backend::counting::races();
    ASSERT_EQ(found.size(), 1u) << all(found);
    EXPECT_EQ(found[0].region, "dynamic");
    EXPECT_EQ(found[0].array, "s_dynamic");
    EXPECT_EQ(found[0].index, 0u);
}

TEST_F(RaceDetector, BlocksRaceOnGlobalMemoryUntilTheLaunchEnds) {
    device_array<int> out(1);
    every_block_writes<<<dim3(2, 2), dim3(4, 2)>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    const auto found = cpu_backend::counting::races();
    ASSERT_EQ(found.size(), 1u) << all(found);
    EXPECT_EQ(found[0].memory, "global");
    EXPECT_EQ(found[0].array, "out");
    EXPECT_EQ(found[0].allocation_bytes, sizeof(int));
    EXPECT_EQ(short_location(found[0].first.location), here("every block"));
    EXPECT_NE(found[0].first.block_linear, found[0].second.block_linear);
    EXPECT_EQ(found[0].second.block.x + 2 * found[0].second.block.y, found[0].second.block_linear);
    EXPECT_CONTAINS(cpu_backend::counting::describe(found[0]), "in different blocks");
    cpu_backend::counting::clear_records();
    every_block_writes<<<1, 32>>>(out.get());  // one block: one thread writes
    every_block_writes<<<1, 32>>>(out.get());  // another launch: ordered by the launch boundary
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_NONE();
}

TEST_F(RaceDetector, VolatileGlobalAccessesAreStrong) {
    device_array<int> flag(1), out(1);
    flag.zero();
    volatile_flag<false><<<2, 32>>>(flag.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_NONE();
    volatile_flag<true><<<2, 32>>>(flag.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(cpu_backend::counting::races().size(), 1u);
}

TEST_F(RaceDetector, AFencedReleaseAndAFencedAcquireOrderTheBlocks) {
    device_array<int> data(64), flag(1), out(64);
    flag.zero();
    message<0><<<2, 64>>>(data.get(), flag.get(), out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_NONE();
    for (int how : {1, 2}) {
        flag.zero();
        if (how == 1) message<1><<<2, 64>>>(data.get(), flag.get(), out.get());
        if (how == 2) message<2><<<2, 64>>>(data.get(), flag.get(), out.get());
        ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
        const auto found = cpu_backend::counting::races();
        ASSERT_EQ(found.size(), 1u) << "case " << how << all(found);
        EXPECT_EQ(found[0].kind, cpu_backend::counting::race_kind::read_after_write);
        EXPECT_EQ(short_location(found[0].first.location), here("message write"));
        EXPECT_EQ(short_location(found[0].second.location), here("message read"));
        cpu_backend::counting::clear_records();
    }
}

TEST_F(RaceDetector, ALaunchPastWhatIsKeptSaysItsGlobalMemoryWentUnchecked) {
  constexpr long long kReads = 8'400'000;
  device_array<int> in(kReads), out(1);
  in.zero();
  many_reads<<<64, 256>>>(in.get(), kReads, out.get());
  ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
  EXPECT_NONE();
  const auto unchecked = cpu_backend::counting::races_unchecked();
  ASSERT_EQ(unchecked.size(), 1u);
  EXPECT_CONTAINS(unchecked[0], "many_reads");
  EXPECT_CONTAINS(cpu_backend::counting::races_json({}, unchecked), "\"unchecked\": [\"kernel many_reads");
  cpu_backend::counting::clear_records();
  EXPECT_TRUE(cpu_backend::counting::races_unchecked().empty());
}

TEST_F(RaceDetector, OffItFindsNothingAndClearingForgets) {
    device_array<int> out(4);
    cpu_backend::counting::set_race_detection(false);
    plain_increment<<<1, 64>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_NONE();
    cpu_backend::counting::set_race_detection(true);
    plain_increment<<<1, 64>>>(out.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(cpu_backend::counting::races().size(), 1u);
    cpu_backend::counting::clear_records();
    EXPECT_NONE();
}

}  // namespace
