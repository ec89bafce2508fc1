// The grader's yardsticks as functions of the yardstick runner (a runner of the grader's own code,
// no student code): timed in rounds exactly like the student's functions (timed_rounds.cuh), so
// that a ratio of the two compares like with like. yardstick_calls.cu defines both sides.
#pragma once
#include <cstddef>

namespace grader::yardstick {

void empty_kernel(const int* d_in, int* d_out);  // one empty kernel: the channel's own cost
void read(const int* d_in, std::size_t count, int* d_sink);       // streaming read, writes nothing
void copy(const int* d_in, std::size_t count, int* d_out);        // cudaMemcpyAsync, device to device
void baseline_histogram(const int* d_in, int n, int* d_bins, int num_bins);    // zeroes, then counts
void privatized_histogram(const int* d_in, int n, int* d_bins, int num_bins);  // zeroes, then counts
std::size_t cub_scan_bytes(int n);
void cub_inclusive_sum(const int* d_in, int n, int* d_out, void* d_temp, std::size_t temp_bytes);
// cub::BlockScan of each 1024-element tile of d_in[0..n) on its own (block-local), into d_out.
void cub_block_scan(const int* d_in, int n, int* d_out);

}  // namespace grader::yardstick
