// Atomics are exact under contention from many blocks running on several
// host threads at once, for every type and scope, and keep CUDA's wrapping
// rules for atomicInc and atomicDec.
#include <cuda_runtime.h>

#include <cstdint>

#include "test_support.hpp"

namespace {

constexpr int kBlocks = 64;
constexpr int kThreads = 256;
constexpr int kTotal = kBlocks * kThreads;

struct counters {
    int add_int;
    unsigned add_unsigned;
    unsigned long long add_ull;
    float add_float;
    double add_double;
    int sub_int;
    unsigned sub_unsigned;
    int min_int;
    int max_int;
    unsigned min_unsigned;
    unsigned max_unsigned;
    long long min_ll;
    unsigned long long max_ull;
    unsigned and_bits;
    unsigned or_bits;
    unsigned xor_bits;
    unsigned long long or_ull;
    int exch_count;
    unsigned inc_counter;
    unsigned dec_counter;
    int cas_counter;
    unsigned long long cas_ull;
    int block_scope;
    int system_scope;
};

__global__ void contend(counters* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&c->add_int, 1);
    atomicAdd(&c->add_unsigned, 2u);
    atomicAdd(&c->add_ull, 1ull << 33);
    atomicAdd(&c->add_float, 1.0f);
    atomicAdd(&c->add_double, 0.5);
    atomicSub(&c->sub_int, 3);
    atomicSub(&c->sub_unsigned, 1u);
    atomicMin(&c->min_int, 1000 - i);
    atomicMax(&c->max_int, i - 1000);
    atomicMin(&c->min_unsigned, static_cast<unsigned>(i + 5));
    atomicMax(&c->max_unsigned, static_cast<unsigned>(i * 2));
    atomicMin(&c->min_ll, -static_cast<long long>(i) * 1000000000ll);
    atomicMax(&c->max_ull, static_cast<unsigned long long>(i) << 40);
    atomicAnd(&c->and_bits, ~(1u << (i % 32)) | (i % 64 < 32 ? 0u : 0xffffffffu));
    atomicOr(&c->or_bits, 1u << (i % 32));
    atomicXor(&c->xor_bits, 1u << (i % 3));
    atomicOr(&c->or_ull, 1ull << (i % 64));
    atomicExch(&c->exch_count, i);
    atomicInc(&c->inc_counter, 999u);
    atomicDec(&c->dec_counter, 999u);
    // An increment built from atomicCAS, the classic retry loop.
    int old = c->cas_counter, assumed;
    do {
        assumed = old;
        old = atomicCAS(&c->cas_counter, assumed, assumed + 1);
    } while (old != assumed);
    unsigned long long old_ull = c->cas_ull, assumed_ull;
    do {
        assumed_ull = old_ull;
        old_ull = atomicCAS(&c->cas_ull, assumed_ull, assumed_ull + 3);
    } while (old_ull != assumed_ull);
    atomicAdd_block(&c->block_scope, 1);
    atomicAdd_system(&c->system_scope, 1);
}

// Shared-memory atomics, then one global merge per block.
__global__ void shared_then_global(unsigned* total) {
    __shared__ unsigned block_count;
    if (threadIdx.x == 0) block_count = 0;
    __syncthreads();
    atomicAdd(&block_count, 1u);
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(total, block_count);
}

// A spin lock shared by all blocks: the critical section is not atomic.
__global__ void locked_increments(int* lock, int* value) {
    if (threadIdx.x % 32 != 0) return;
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence();
    *value = *value + 1;
    __threadfence();
    atomicExch(lock, 0);
}

__global__ void wrapping_counters(unsigned* values, unsigned* olds) {
    olds[0] = atomicInc(&values[0], 3u);  // 3 -> 0
    olds[1] = atomicInc(&values[1], 3u);  // 5 -> 0 (above the limit)
    olds[2] = atomicInc(&values[2], 3u);  // 1 -> 2
    olds[3] = atomicDec(&values[3], 3u);  // 0 -> 3
    olds[4] = atomicDec(&values[4], 3u);  // 7 -> 3 (above the limit)
    olds[5] = atomicDec(&values[5], 3u);  // 2 -> 1
}

__global__ void exchange_float(float* value, float* old) { *old = atomicExch(value, 2.5f); }

class Atomics : public CpuBackendTest {
protected:
    void SetUp() override {
        CpuBackendTest::SetUp();
        cpu_backend::set_host_threads(4);  // more host threads than cores: real preemption
    }
};

TEST_F(Atomics, EveryTypeIsExactUnderContentionAcrossBlocks) {
    counters initial{};
    initial.min_int = 1 << 30;
    initial.max_int = -(1 << 30);
    initial.min_unsigned = 0xffffffffu;
    initial.min_ll = 0;
    initial.and_bits = 0xffffffffu;
    initial.dec_counter = 0;
    counters* device = nullptr;
    ASSERT_CUDA_SUCCESS(cudaMalloc(&device, sizeof(counters)));
    ASSERT_CUDA_SUCCESS(cudaMemcpy(device, &initial, sizeof initial, cudaMemcpyHostToDevice));
    contend<<<kBlocks, kThreads>>>(device);
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    counters c{};
    ASSERT_CUDA_SUCCESS(cudaMemcpy(&c, device, sizeof c, cudaMemcpyDeviceToHost));
    cudaFree(device);

    EXPECT_EQ(kTotal, c.add_int);
    EXPECT_EQ(2u * kTotal, c.add_unsigned);
    EXPECT_EQ(static_cast<unsigned long long>(kTotal) << 33, c.add_ull);
    EXPECT_EQ(static_cast<float>(kTotal), c.add_float);
    EXPECT_EQ(0.5 * kTotal, c.add_double);
    EXPECT_EQ(-3 * kTotal, c.sub_int);
    EXPECT_EQ(0u - kTotal, c.sub_unsigned);
    EXPECT_EQ(1000 - (kTotal - 1), c.min_int);
    EXPECT_EQ(kTotal - 1 - 1000, c.max_int);
    EXPECT_EQ(5u, c.min_unsigned);
    EXPECT_EQ(2u * (kTotal - 1), c.max_unsigned);
    EXPECT_EQ(-static_cast<long long>(kTotal - 1) * 1000000000ll, c.min_ll);
    EXPECT_EQ(static_cast<unsigned long long>(kTotal - 1) << 40, c.max_ull);
    EXPECT_EQ(0u, c.and_bits);
    EXPECT_EQ(0xffffffffu, c.or_bits);
    unsigned expected_xor = 0;
    for (int i = 0; i < kTotal; ++i) expected_xor ^= 1u << (i % 3);
    EXPECT_EQ(expected_xor, c.xor_bits);
    EXPECT_EQ(~0ull, c.or_ull);
    EXPECT_GE(c.exch_count, 0);
    EXPECT_LT(c.exch_count, kTotal);
    EXPECT_EQ(static_cast<unsigned>(kTotal % 1000), c.inc_counter);
    EXPECT_EQ(static_cast<unsigned>((1000 - kTotal % 1000) % 1000), c.dec_counter);
    EXPECT_EQ(kTotal, c.cas_counter);
    EXPECT_EQ(3ull * kTotal, c.cas_ull);
    EXPECT_EQ(kTotal, c.block_scope);
    EXPECT_EQ(kTotal, c.system_scope);
}

TEST_F(Atomics, SharedAndGlobalAtomicsCombine) {
    device_array<unsigned> total(1);
    total.zero();
    shared_then_global<<<200, 512>>>(total.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(200u * 512u, total.download()[0]);
}

TEST_F(Atomics, SpinLockAcrossBlocksProtectsACriticalSection) {
    device_array<int> lock(1), value(1);
    lock.zero();
    value.zero();
    locked_increments<<<64, 128>>>(lock.get(), value.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(64 * 4, value.download()[0]);
}

TEST_F(Atomics, IncAndDecWrapLikeCuda) {
    device_array<unsigned> values(std::vector<unsigned>{3, 5, 1, 0, 7, 2}), olds(6);
    wrapping_counters<<<1, 1>>>(values.get(), olds.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ((std::vector<unsigned>{0, 0, 2, 3, 3, 1}), values.download());
    EXPECT_EQ((std::vector<unsigned>{3, 5, 1, 0, 7, 2}), olds.download());
}

TEST_F(Atomics, ExchangeOfFloatReturnsTheOldValue) {
    device_array<float> value(std::vector<float>{1.25f}), old(1);
    exchange_float<<<1, 1>>>(value.get(), old.get());
    ASSERT_CUDA_SUCCESS(cudaDeviceSynchronize());
    EXPECT_EQ(2.5f, value.download()[0]);
    EXPECT_EQ(1.25f, old.download()[0]);
}

}  // namespace
