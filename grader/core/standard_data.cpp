#include "grader/core/standard_data.hpp"

#include <map>

#include "grader/core/run_options.hpp"
#include "grader/core/samples_file.hpp"

namespace grader {

const std::vector<int>& standard_samples(int num_bins) {
  static std::map<int, std::vector<int>> loaded;  // by number of bins: validation depends on it
  auto found = loaded.find(num_bins);
  if (found != loaded.end()) return found->second;
  const std::string& path = run_options().data_path;
  if (path.empty()) throw DataError("no samples file given: a checker reads GRADER_DATA, a tool takes --data=PATH (python3 grader/grade.py sets it)");
  std::vector<int> samples = load_samples_file(path, num_bins, scaled_size(std::size_t{1} << 25));
  return loaded.emplace(num_bins, std::move(samples)).first->second;
}

}  // namespace grader
