// The yardsticks every speed test is compared with, timed in rounds in the yardstick runner
// (timed_rounds.cuh) on fresh inputs made from the same source data as the student's: measured
// once per run and source, then reused. The student's own functions are timed with
// time_student_histogram() or time_rounds() directly.
#pragma once
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>

#include "grader/core/timed_rounds.cuh"
#include "grader/core/yardsticks.cuh"

namespace grader {

const Measurement& read_bandwidth_yardstick(const int* d_samples, std::size_t n);
Measurement read_bandwidth_in_rounds(const int* d_samples, std::size_t n);  // the same, measured anew
const Measurement& baseline_histogram_yardstick(const int* d_samples, int n, int num_bins);
const Measurement& privatized_histogram_yardstick(const int* d_samples, int n, int num_bins);
const Measurement& copy_yardstick(const int* d_in, std::size_t n);      // 2 x 4 bytes per element
const Measurement& cub_scan_yardstick(const int* d_in, int n);          // 2 x 4 bytes per element
// cub::BlockScan of every 1024-element tile on its own: lab 05's block-local scans, by the library.
const Measurement& cub_block_scan_yardstick(const int* d_in, int n);    // 2 x 4 bytes per element

// A histogram launcher of the student's, `launch(d_samples, n, d_bins)`, timed in rounds on fresh
// inputs made from d_samples[0..n); every output checked against the grader's own histogram.
::testing::AssertionResult time_student_histogram(const std::string& name, const int* d_samples, int n,
                                                  int num_bins,
                                                  const std::function<void(const int*, int, int*)>& launch,
                                                  Measurement& measured);

// This GPU's theoretical DRAM bandwidth in GB/s from its attributes (memory clock x bus width x 2
// for double data rate); 0 where the device does not report them.
double theoretical_bandwidth_gbps();

}  // namespace grader
