// Rules a submission's source must follow, checked on its text: labs that ask students to write a
// scan or a histogram themselves reject code that hands the work to CUB or Thrust.
#pragma once
#include <string>
#include <vector>

namespace grader {

// The source with comments removed and the contents of string and character literals blanked,
// line breaks kept, so a finding's line number is the line in the original file.
std::string strip_comments_and_strings(const std::string& source);

// Each use of a forbidden library: "line 12: cub::DeviceScan" or "line 3: #include <thrust/scan.h>".
// Looks for the namespaces cub:: and thrust:: (also ::cub::, not my_cub::) and for includes of
// headers under cub/ or thrust/, after strip_comments_and_strings.
std::vector<std::string> forbidden_library_uses(const std::string& source);

// The whole file; throws std::runtime_error naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace grader
