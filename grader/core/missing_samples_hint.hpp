// Hints for the classic histogram bugs, only where the bins prove them.
#pragma once
#include <string>
#include <vector>

namespace grader {

// Bins never zeroed (each holds the fill pattern plus its count), or the samples missing from (or
// added to) the bins where they are exactly one run of the input: its last ones (the tail), its
// first ones, or one aligned chunk (a block's or a thread's share). "" where the bins prove nothing,
// e.g. all-equal samples, where every run of the input has the same histogram.
std::string missing_samples_hint(const std::vector<int>& samples, const std::vector<int>& expected,
                                 const std::vector<int>& got);

}  // namespace grader
