// Prints the first bins of a samples file as a Python list, like data/histogram.py, from the
// grader's own loader and CPU reference, so the two can be checked against each other.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "grader/core/cpu_reference.hpp"
#include "grader/core/samples_file.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: first_bins SAMPLES_FILE [NUM_BINS=1024] [COUNT=10]\n");
    return 2;
  }
  const int num_bins = argc > 2 ? std::atoi(argv[2]) : 1024;
  const int count = argc > 3 ? std::atoi(argv[3]) : 10;
  if (num_bins <= 0 || count < 0) {
    std::fprintf(stderr, "error: NUM_BINS must be positive and COUNT non-negative\n");
    return 2;
  }
  try {
    const auto samples = grader::load_samples_file(argv[1], num_bins);
    const auto bins = grader::cpu_histogram(samples, num_bins);
    std::printf("%s\n", grader::python_list(bins, static_cast<std::size_t>(count)).c_str());
  } catch (const grader::DataError& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
  return 0;
}
