// Lab 00 - the host program. Handout: handouts/00-host-program.md.
// Fill in the TODOs; `meson test -C build --suite lab00` grades this file by running it.
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
#define CUDA_CHECK(call) (call)

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
  const int n = static_cast<int>(samples.size());

  std::vector<int> bins(kNumBins);
  [[maybe_unused]] float kernel_ms = 0;  // the kernel's time, from two events
  // TODO(Q3.1): allocate the samples and the bins on the GPU, zero the bins, copy the samples
  // over, launch histogram_kernel with a thread per sample (blocks of kThreadsPerBlock threads,
  // never 0 blocks), check the launch and the run, copy the bins back and free both buffers;
  // every call through CUDA_CHECK (about 14 lines).
  // TODO(Q3.2): time the kernel alone with two CUDA events into kernel_ms (about 8 lines).
  (void)n;

  // TODO(Q3.3): print the first 10 bins as data/histogram.py does ("[a, b, ..., j]"), then
  // "kernel time: X.XXX ms", each on its own line (about 4 lines).
  (void)kernel_ms;
  return 0;
}
