// The CPU answers the grader compares GPU results with.
#pragma once
#include <string>
#include <vector>

namespace grader {

// Counts of each value in [0, num_bins); samples outside the range are ignored.
std::vector<int> cpu_histogram(const std::vector<int>& samples, int num_bins);

// The first `count` entries as Python prints a list, e.g. "[3, 0, 0, 1]": the format of
// data/histogram.py, so the two can be compared line for line.
std::string python_list(const std::vector<int>& values, std::size_t count);

}  // namespace grader
