// Rules a submission's source must follow, checked on its text: labs that ask students to write a
// scan or a histogram themselves reject code that hands the work to CUB or Thrust; and what a
// kernel file has no business doing (probe_uses), for the batch grader's integrity findings.
#pragma once
#include <string>
#include <vector>

namespace grader {

// The source with comments removed and the contents of string and character literals blanked,
// line breaks kept, so a finding's line number is the line in the original file.
std::string strip_comments_and_strings(const std::string& source);

// The source with comments removed and string and character literals kept, line breaks kept.
std::string strip_comments(const std::string& source);

// Lines spliced: each backslash-newline removed, its line break moved to the end of the line, so
// `get\<newline>env` reads getenv on its first line and the next lines keep their numbers.
std::string splice_lines(const std::string& source);

// Names glued by token pasting (`get ## env`, the digraph `get %:%: env`) joined into one.
std::string join_pasted_tokens(const std::string& code);

// One thing a kernel file has no business doing, found on `line`. `rule` is one of:
//   sanitizer        names compute-sanitizer, its tools or the variables it sets (in code or a
//                    string): code that looks for the checker can only mean to act differently
//   l2-persistence   the persisting-L2 access-policy API (keeps data in the cache across calls)
//   environment      reads the environment (getenv, environ, ...)
//   loaded-libraries looks at the loaded libraries or looks functions up by name (dl*, link_map)
//   other-processes  signals or traces a process (kill, sigqueue, ptrace, ...)
//   system-paths     names /proc or /sys
//   backend-test     tests which compiler or backend builds it (CUDA_CPU_BACKEND, __CUDACC__, ...)
//   descriptors      moves, copies or makes a descriptor or standard stream the host can read
//                    back (dup2, freopen, setvbuf, pipe, memfd_create, `stdout =`, close(1), ...):
//                    what a kernel prints, read back on the host, carries the samples there
//   device-settings  sets a device limit or a stream or launch attribute other than by a harmless
//                    name (the persisting-L2 settings go through these calls)
// `what` is the name or text found. Comments never count; names built by token pasting and
// strings split into adjacent literals do. A name built by a macro's arguments (CAT(get, env)) is
// beyond a text rule: the batch grader also reads the compiled object's symbols and strings.
struct ProbeUse {
  int line;
  std::string rule;
  std::string what;
};
std::vector<ProbeUse> probe_uses(const std::string& source);

// Each use of a forbidden library: "line 12: cub::DeviceScan" or "line 3: #include <thrust/scan.h>".
// Looks for the namespaces cub:: and thrust:: (also ::cub::, not my_cub::) and for includes of
// headers under cub/ or thrust/, after strip_comments_and_strings.
std::vector<std::string> forbidden_library_uses(const std::string& source);

// The whole file; throws std::runtime_error naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace grader
