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

}  // namespace grader
