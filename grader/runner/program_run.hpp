// Runs a student's whole program (lab 00) as a separate process, as the runner is run: its own
// process group, no GRADER_* variable, no descriptor of the checker's, killed with the checker or
// at its time limit; stdout and stderr captured (at most kMaxCapturedBytes each). Counted: its
// launches and copies are counted inside it and reported on a descriptor (program_report.hpp).
#pragma once
#include <string>
#include <vector>

namespace grader::runner {

constexpr std::size_t kMaxCapturedBytes = 1 << 20;

struct ProgramRun {
  bool started = false;    // false: it could not be started (`how` says why)
  bool timed_out = false;
  int exit_code = -1;      // the exit status when it exited, else -1
  std::string how;         // "exited with status 1", "crashed: SIGSEGV (...)", "stopped after 30 s"
  std::string out, err;
  std::string report;      // counted runs: what the counters wrote (program_report.hpp)
  std::string token;       // and the token a report of this run carries
};

// `wrapper` (a sanitizer, qemu) goes before the program on the command line, as for the runner.
// `counted`: with the counters of this build's backend loaded into it.
ProgramRun run_program(const std::vector<std::string>& wrapper, const std::string& program,
                       const std::vector<std::string>& args, double timeout_seconds, bool counted = false);

}  // namespace grader::runner
