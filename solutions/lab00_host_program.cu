// Lab 00 - the host program. Handout: handouts/00-host-program.md.
// Fill in the TODOs; `meson test -C build --suite lab00` grades this file by running it.
// Reference solution: `diff starter/<this file> solutions/<this file>` is the answer key.
//
//   lab00_host_program FILE   prints the first 10 bins of FILE (int32 samples in 0..1023) in
//                             data/histogram.py's format, then the kernel's time
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

constexpr int kNumBins = 1024;
constexpr int kThreadsPerBlock = 256;

// TODO(Q1.1): CUDA_CHECK(call): evaluate the call once; unless it returned cudaSuccess, print
// "error: FILE:LINE: <the error's text> (<the call>)" to stderr and exit with status 1 (about 6 lines).
#define CUDA_CHECK(call)                                                                 \
  do {                                                                                   \
    const cudaError_t status_ = (call);                                                  \
    if (status_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "error: %s:%d: %s (%s)\n", __FILE__, __LINE__,                \
                   cudaGetErrorString(status_), #call);                                  \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

// Given: one thread per sample, each adding it to its bin with one global atomicAdd; threads past
// the last sample do nothing. (Lab 01 gives each thread many samples.)
__global__ void histogram_kernel(const int* samples, int n, int* bins) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[samples[i]], 1);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE   (FILE: int32 samples in 0..%d, e.g. build/data/data.bin)\n",
                 argv[0], kNumBins - 1);
    return 2;
  }
  std::vector<int> samples;
  // TODO(Q2.1): read FILE into samples. A file that cannot be opened, a size that is not a
  // multiple of 4 bytes, or a sample outside 0..1023: one "error: ..." line on stderr that says
  // what is wrong and what to do, and exit status 1. An empty file holds 0 samples (about 20 lines).
  std::ifstream file(argv[1], std::ios::binary | std::ios::ate);
  if (!file) {
    std::fprintf(stderr, "error: cannot open %s: check the path (python3 data/generate.py makes one)\n", argv[1]);
    return 1;
  }
  const std::streamoff bytes = file.tellg();
  if (bytes % static_cast<std::streamoff>(sizeof(int)) != 0) {
    std::fprintf(stderr, "error: %s holds %lld bytes, not a whole number of int32 samples: the file is "
                 "truncated; generate it again with python3 data/generate.py\n", argv[1],
                 static_cast<long long>(bytes));
    return 1;
  }
  samples.resize(static_cast<std::size_t>(bytes) / sizeof(int));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(samples.data()), bytes)) {
    std::fprintf(stderr, "error: reading %s failed after %lld bytes\n", argv[1],
                 static_cast<long long>(file.gcount()));
    return 1;
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i] < 0 || samples[i] >= kNumBins) {
      std::fprintf(stderr, "error: sample %zu of %s is %d, outside 0..%d: this is not a samples file "
                   "of this lab; generate one with python3 data/generate.py\n", i, argv[1], samples[i],
                   kNumBins - 1);
      return 1;
    }
  }
  const int n = static_cast<int>(samples.size());

  std::vector<int> bins(kNumBins);
  [[maybe_unused]] float kernel_ms = 0;  // the kernel's time, from two events
  // TODO(Q3.1): allocate the samples and the bins on the GPU, zero the bins, copy the samples
  // over, launch histogram_kernel with a thread per sample (blocks of kThreadsPerBlock threads,
  // never 0 blocks), check the launch and the run, copy the bins back and free both buffers;
  // every call through CUDA_CHECK (about 14 lines).
  // TODO(Q3.2): time the kernel alone with two CUDA events into kernel_ms (about 8 lines).
  // Q3.1 and Q3.2 answered together: the cudaEvent lines (Q3.2) wrap the launch and nothing else.
  int* d_samples = nullptr;
  int* d_bins = nullptr;
  // A thread per sample, rounded up to whole blocks; one block for an empty file (a launch of 0
  // blocks is refused: invalid configuration argument).
  const int blocks = n > 0 ? (n + kThreadsPerBlock - 1) / kThreadsPerBlock : 1;
  CUDA_CHECK(cudaMalloc(&d_samples, samples.size() * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&d_bins, kNumBins * sizeof(int)));
  CUDA_CHECK(cudaMemset(d_bins, 0, kNumBins * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(d_samples, samples.data(), samples.size() * sizeof(int), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  histogram_kernel<<<blocks, kThreadsPerBlock>>>(d_samples, n, d_bins);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaEventElapsedTime(&kernel_ms, start, stop));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  CUDA_CHECK(cudaMemcpy(bins.data(), d_bins, kNumBins * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_samples));
  CUDA_CHECK(cudaFree(d_bins));

  // TODO(Q3.3): print the first 10 bins as data/histogram.py does ("[a, b, ..., j]"), then
  // "kernel time: X.XXX ms", each on its own line (about 4 lines).
  std::printf("[");
  for (int b = 0; b < 10; ++b) std::printf(b ? ", %d" : "%d", bins[b]);
  std::printf("]\nkernel time: %.3f ms\n", kernel_ms);
  return 0;
}
