// Reads a samples file (raw little-endian int32, the format data/generate.py writes) and checks
// it, so a missing, truncated or out-of-range file gives a message that says what to do.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {

class DataError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Loads at most `max_count` samples (all when the file is shorter) and checks every sample loaded
// lies in [0, num_bins). Throws DataError naming the file, the problem and the fix.
std::vector<int> load_samples_file(const std::string& path, int num_bins,
                                   std::size_t max_count = std::numeric_limits<std::size_t>::max());

}  // namespace grader
