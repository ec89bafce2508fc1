// What yardstick_launches.cu gives the yardsticks' count program (yardsticks_count.cu).
#pragma once
#include <cstddef>

namespace yardstick_launches {

constexpr int kSms = 132;  // an H100's and an H200's multiprocessors
constexpr int kNumBins = 1024;

void read_everything(const int* d_data, std::size_t count, int* d_sink);
void baseline_histogram(const int* d_samples, int n, int* d_bins, int num_bins);
void privatized_histogram(const int* d_samples, int n, int* d_bins, int num_bins);

}  // namespace yardstick_launches
