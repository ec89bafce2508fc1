// The standard data set (build/data/data.bin unless --data= says otherwise), loaded once per run.
#pragma once
#include <vector>

namespace grader {

// The samples of the standard file, scaled_size()'d; throws DataError with the fix when the file
// is missing, truncated or out of range.
const std::vector<int>& standard_samples(int num_bins);

}  // namespace grader
