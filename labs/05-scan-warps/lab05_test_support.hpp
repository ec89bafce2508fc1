// What both lab 05 test files share: the seed and the verdict of the no-CUB, no-Thrust rule.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "grader/core/run_options.hpp"
#include "grader/core/source_rules.hpp"

namespace lab05_test {

constexpr const char* kSubmissionFile = "lab05_scan_warps.cu";

inline std::uint64_t seed() { return grader::run_options().seed; }

struct RuleCheck {
  bool checked = false;
  std::vector<std::string> violations;
  std::string reason;  // why not checked, or what was found
};

// The submission's source, comments and strings stripped, must not use CUB or Thrust: the lab asks
// for scans written by hand, and CUB's scan is the yardstick they are compared with.
inline const RuleCheck& rule_check() {
  static const RuleCheck check = [] {
    RuleCheck result;
    const std::string folder = grader::run_options().submission;
    if (folder.empty()) {
      result.reason = "the source cannot be checked: the grader was not told the submission folder "
                      "(--submission=DIR; meson test passes it)";
      return result;
    }
    const std::string path = folder + "/" + kSubmissionFile;
    try {
      result.violations = grader::forbidden_library_uses(grader::read_text_file(path));
    } catch (const std::exception& error) {
      result.reason = std::string("the source cannot be checked: ") + error.what();
      return result;
    }
    result.checked = true;
    if (!result.violations.empty()) {
      result.reason = path + " uses CUB or Thrust, which this lab does not allow (write the scans "
                             "yourself; CUB is the yardstick they are measured against):";
      for (const std::string& use : result.violations) result.reason += "\n  " + use;
    }
    return result;
  }();
  return check;
}

}  // namespace lab05_test
