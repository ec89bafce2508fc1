#include "grader/core/statistics.hpp"

#include <algorithm>
#include <cmath>

namespace grader {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] * (1 - weight) + sorted[above] * weight;
}

}  // namespace

Summary summarize(std::vector<double> values) {
  Summary s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = static_cast<int>(values.size());
  s.min = values.front();
  s.max = values.back();
  s.q1 = quantile(values, 0.25);
  s.median = quantile(values, 0.5);
  s.q3 = quantile(values, 0.75);
  return s;
}

SteadyWindow first_steady_window(const std::vector<double>& values, int window, double tolerance) {
  SteadyWindow found;
  const int count = static_cast<int>(values.size());
  if (window <= 0 || count < window) {
    found.summary = summarize(values);
    return found;
  }
  for (int first = 0; first + window <= count; ++first) {
    found.skipped = first;
    found.summary = summarize({values.begin() + first, values.begin() + first + window});
    found.steady = found.summary.relative_spread() <= tolerance;
    if (found.steady) break;
  }
  return found;
}

}  // namespace grader
