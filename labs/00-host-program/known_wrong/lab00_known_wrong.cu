// Lab 00 known-wrong programs for the self-tests: the solution with one defect, chosen with
// -DKNOWN_WRONG=N (labs/00-host-program/meson.build says what each must fail).
//   1 no_range_check: samples outside 0..1023 are counted, not refused
//   2 exits_zero_on_errors: says "error:" but exits with status 0
//   3 space_separated: prints the bins without the commas of data/histogram.py
//   4 counts_on_the_host: counts on the host and prints a made-up kernel time; the CUDA calls are
//     all there, in code that never runs
//   5 made_up_time: counts on the GPU, but prints a made-up kernel time instead of the events'
//   6 prints_host_bins: its kernel counts wrongly (a few blocks striding by blockDim.x count the
//     samples several times over); it copies those bins back, but prints bins it counted on the
//     host while reading the file (issue 51, attack 4)
//
//   lab00_host_program FILE   prints the first 10 bins of FILE (int32 samples in 0..1023) in
//                             data/histogram.py's format, then the kernel's time
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

constexpr int kNumBins = 1024;
constexpr int kThreadsPerBlock = 256;

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
#if KNOWN_WRONG == 6
  for (int j = i; j < n; j += blockDim.x) atomicAdd(&bins[samples[j]], 1);
#else
  if (i < n) atomicAdd(&bins[samples[i]], 1);
#endif
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE   (FILE: int32 samples in 0..%d, e.g. build/data/data.bin)\n",
                 argv[0], kNumBins - 1);
    return 2;
  }
  std::vector<int> samples;
  std::ifstream file(argv[1], std::ios::binary | std::ios::ate);
  if (!file) {
    std::fprintf(stderr, "error: cannot open %s: check the path (python3 data/generate.py makes one)\n", argv[1]);
    return KNOWN_WRONG == 2 ? 0 : 1;
  }
  const std::streamoff bytes = file.tellg();
  if (bytes % static_cast<std::streamoff>(sizeof(int)) != 0) {
    std::fprintf(stderr, "error: %s holds %lld bytes, not a whole number of int32 samples: the file is "
                 "truncated; generate it again with python3 data/generate.py\n", argv[1],
                 static_cast<long long>(bytes));
    return KNOWN_WRONG == 2 ? 0 : 1;
  }
  samples.resize(static_cast<std::size_t>(bytes) / sizeof(int));
  file.seekg(0);
  if (!file.read(reinterpret_cast<char*>(samples.data()), bytes)) {
    std::fprintf(stderr, "error: reading %s failed after %lld bytes\n", argv[1],
                 static_cast<long long>(file.gcount()));
    return 1;
  }
  std::vector<int> host_bins(kNumBins);  // KNOWN_WRONG 6 prints these
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i] >= 0 && samples[i] < kNumBins) ++host_bins[samples[i]];
    if (KNOWN_WRONG != 1 && (samples[i] < 0 || samples[i] >= kNumBins)) {
      std::fprintf(stderr, "error: sample %zu of %s is %d, outside 0..%d: this is not a samples file "
                   "of this lab; generate one with python3 data/generate.py\n", i, argv[1], samples[i],
                   kNumBins - 1);
      return KNOWN_WRONG == 2 ? 0 : 1;
    }
  }
  const int n = static_cast<int>(samples.size());

  std::vector<int> bins(kNumBins);
  float kernel_ms = 0;
  if (KNOWN_WRONG == 4 && argc < 100) {
    for (int v : samples) ++bins[v];
    std::printf("[");
    for (int b = 0; b < 10; ++b) std::printf(b ? ", %d" : "%d", bins[b]);
    std::printf("]\nkernel time: %.3f ms\n", 0.042);
    return 0;
  }
  int* d_samples = nullptr;
  int* d_bins = nullptr;
  const int blocks = KNOWN_WRONG == 6 ? 4 : n > 0 ? (n + kThreadsPerBlock - 1) / kThreadsPerBlock : 1;
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
  if (KNOWN_WRONG == 6) bins = host_bins;

  std::printf("[");
  for (int b = 0; b < 10; ++b) std::printf(b ? (KNOWN_WRONG == 3 ? " %d" : ", %d") : "%d", bins[b]);
  std::printf("]\nkernel time: %.3f ms\n", KNOWN_WRONG == 5 ? 0.001f : kernel_ms);
  return 0;
}
