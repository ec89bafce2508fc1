// Wall-clock cost of typical workbook kernels on the CPU backend, for the
// numbers in README.md. Not a test: run it with `meson test --benchmark` or
// directly, optionally with CUDA_CPU_BACKEND_THREADS set.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <vector>

namespace {

constexpr int kN = 1 << 20;

__global__ void add_one(const int* in, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + 1;
}

__global__ void block_scan_hillis_steele(const int* in, int* out) {
    __shared__ int buffer[2][1024];
    int t = threadIdx.x, source = 0;
    buffer[0][t] = in[blockIdx.x * 1024 + t];
    __syncthreads();
    for (int offset = 1; offset < 1024; offset *= 2) {
        int value = buffer[source][t];
        if (t >= offset) value += buffer[source][t - offset];
        buffer[1 - source][t] = value;
        source = 1 - source;
        __syncthreads();
    }
    out[blockIdx.x * 1024 + t] = buffer[source][t];
}

__global__ void block_scan_warp_shuffles(const int* in, int* out) {
    __shared__ int totals[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    int value = in[i];
    for (int offset = 1; offset < 32; offset *= 2) {
        int other = __shfl_up_sync(0xffffffffu, value, offset);
        if (lane >= offset) value += other;
    }
    if (lane == 31) totals[warp] = value;
    __syncthreads();
    if (warp == 0) {
        int total = totals[lane];
        for (int offset = 1; offset < 32; offset *= 2) {
            int other = __shfl_up_sync(0xffffffffu, total, offset);
            if (lane >= offset) total += other;
        }
        totals[lane] = total;
    }
    __syncthreads();
    out[i] = warp > 0 ? value + totals[warp - 1] : value;
}

__global__ void shared_histogram(const int* in, int n, unsigned* histogram) {
    __shared__ unsigned bins[256];
    if (threadIdx.x < 256) bins[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&bins[in[i] & 255], 1u);
    __syncthreads();
    if (threadIdx.x < 256) atomicAdd(&histogram[threadIdx.x], bins[threadIdx.x]);
}

template <class Launch>
double milliseconds(Launch launch) {
    launch();  // warm up: stacks, pages, helper threads
    cudaDeviceSynchronize();
    const int repeats = 3;
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < repeats; ++r) launch();
    cudaDeviceSynchronize();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / repeats;
}

}  // namespace

int main() {
    std::vector<int> host(kN);
    for (int i = 0; i < kN; ++i) host[i] = i * 7;
    int *in = nullptr, *out = nullptr;
    unsigned* histogram = nullptr;
    cudaMalloc(&in, kN * sizeof(int));
    cudaMalloc(&out, kN * sizeof(int));
    cudaMalloc(&histogram, 256 * sizeof(unsigned));
    cudaMemcpy(in, host.data(), kN * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemset(histogram, 0, 256 * sizeof(unsigned));

    std::printf("CPU backend, %u host threads, fibers: %s, 2^20 elements, 1024-thread blocks\n",
                cpu_backend::host_threads(), cpu_backend::fiber_implementation());
    double plain = milliseconds([&] {
        for (int i = 0; i < kN; ++i) out[i] = in[i] + 1;
    });
    std::printf("  plain host loop (one thread)          %8.2f ms\n", plain);
    std::printf("  add_one, no barrier                   %8.2f ms\n",
                milliseconds([&] { add_one<<<kN / 1024, 1024>>>(in, out, kN); }));
    std::printf("  Hillis-Steele block scan (11 barriers) %7.2f ms\n",
                milliseconds([&] { block_scan_hillis_steele<<<kN / 1024, 1024>>>(in, out); }));
    std::printf("  warp-shuffle block scan (2 barriers)  %8.2f ms\n",
                milliseconds([&] { block_scan_warp_shuffles<<<kN / 1024, 1024>>>(in, out); }));
    std::printf("  shared-memory histogram, 64 blocks    %8.2f ms\n",
                milliseconds([&] { shared_histogram<<<64, 1024>>>(in, kN, histogram); }));
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : 1;
}
