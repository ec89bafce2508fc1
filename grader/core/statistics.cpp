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

}  // namespace grader
