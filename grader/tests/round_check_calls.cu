// Functions for grader/tests/test_timed_rounds.cu on both sides, as a lab's labNN_calls.cu: built
// into a runner (GRADER_RUNNER_SIDE) they run here; built into the test they are calls into it.
// One counts honestly; one does what a cheating timed call would: fills its input with -1 (a value
// of no bin), zeroes its bins and counts nothing, so that a check against the input as the runner
// left it (no sample in any bin) would pass.
#include "grader/core/lab_calls.hpp"

namespace round_check {
void count(const int* d_in, int n, int* d_bins, int num_bins);
void wipe_input(const int* d_in, int n, int* d_bins, int num_bins);
}  // namespace round_check

#ifdef GRADER_RUNNER_SIDE

#include <cuda_runtime.h>

namespace round_check {
namespace {
__global__ void histogram(const int* in, int n, int* bins, int num_bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    if (in[i] >= 0 && in[i] < num_bins) atomicAdd(&bins[in[i]], 1);
  }
}
__global__ void nothing() {}
}  // namespace

void count(const int* d_in, int n, int* d_bins, int num_bins) {
  cudaMemsetAsync(d_bins, 0, num_bins * sizeof(int));
  histogram<<<64, 256>>>(d_in, n, d_bins, num_bins);
}
void wipe_input(const int* d_in, int n, int* d_bins, int num_bins) {
  cudaMemsetAsync(const_cast<int*>(d_in), 0xff, n * sizeof(int));
  cudaMemsetAsync(d_bins, 0, num_bins * sizeof(int));
  nothing<<<1, 32>>>();
}
}  // namespace round_check

GRADER_RUNNER_TABLE(GRADER_EXPOSE(round_check::count), GRADER_EXPOSE(round_check::wipe_input))

#else

namespace round_check {
void count(const int* d_in, int n, int* d_bins, int num_bins) {
  grader::call_student<void>("round_check::count", d_in, n, d_bins, num_bins);
}
void wipe_input(const int* d_in, int n, int* d_bins, int num_bins) {
  grader::call_student<void>("round_check::wipe_input", d_in, n, d_bins, num_bins);
}
}  // namespace round_check

#endif
