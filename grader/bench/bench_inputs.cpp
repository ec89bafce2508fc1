#include "grader/bench/bench_inputs.hpp"

#include "grader/core/byte_inputs.hpp"
#include "grader/core/sample_inputs.hpp"

namespace bench {
namespace {
constexpr std::uint64_t kSeed = 2025;
constexpr double kNormalMean = 500, kNormalStddev = 30;
constexpr double kByteMean = 128, kByteStddev = 30;
constexpr int kEqualValue = 500;
constexpr unsigned char kEqualByte = 'e';
}  // namespace

std::string distribution_name(Distribution d, bool bytes) {
  switch (d) {
    case Distribution::kUniform: return "uniform";
    case Distribution::kNormal: return bytes ? "normal(128, 30)" : "normal(500, 30)";
    case Distribution::kAllEqual: return "all equal";
  }
  return "?";
}

std::vector<int> int_samples(Distribution d, std::size_t count, int bins) {
  switch (d) {
    case Distribution::kUniform: return grader::uniform_samples(count, bins, kSeed);
    case Distribution::kNormal:
      return grader::normal_samples(count, bins, kNormalMean, kNormalStddev, kSeed);
    case Distribution::kAllEqual: return grader::constant_samples(count, kEqualValue % bins);
  }
  return {};
}

std::vector<unsigned char> byte_samples(Distribution d, std::size_t count) {
  switch (d) {
    case Distribution::kUniform: return grader::random_bytes(count, kSeed);
    case Distribution::kNormal: {
      const std::vector<int> values = grader::normal_samples(count, 256, kByteMean, kByteStddev, kSeed);
      return std::vector<unsigned char>(values.begin(), values.end());
    }
    case Distribution::kAllEqual: return std::vector<unsigned char>(count, kEqualByte);
  }
  return {};
}

}  // namespace bench
