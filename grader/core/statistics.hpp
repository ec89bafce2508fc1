// Order statistics of repeated timings: the median is what the grader compares, the spread
// (min, quartiles, max) tells whether the comparison can be trusted.
#pragma once
#include <vector>

namespace grader {

struct Summary {
  int count = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, max = 0;
  // Interquartile range relative to the median: 0.05 means the middle half lies within 5 %.
  double relative_spread() const { return median > 0 ? (q3 - q1) / median : 0; }
};

// Linear interpolation between order statistics (numpy's default); an empty input gives count 0.
Summary summarize(std::vector<double> values);

// A measurement taken once the GPU has settled: the first `window` consecutive values whose
// interquartile range is within `tolerance` of their median. A GPU that has just allocated or
// freed gigabytes runs some rounds up to 15 % slower for a few tens of milliseconds (measured on
// an H100: 4 slow rounds of 7, enough to move a median); the window starts after them.
struct SteadyWindow {
  Summary summary;      // of the window (the last `window` values when none was steady yet)
  bool steady = false;  // a steady window was found
  int skipped = 0;      // values before the window
};
SteadyWindow first_steady_window(const std::vector<double>& values, int window, double tolerance);

}  // namespace grader
