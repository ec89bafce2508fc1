// What a whole student program (lab 00) did on the GPU, counted inside it as a runner's calls are:
// on a GPU by the grader's CUPTI library, preloaded into it (LD_PRELOAD, program_counters_cuda.cpp),
// on the CPU backend by the backend itself (its host_work.cpp). The checker gives the counter
// kReportVariable = "FD:TOKEN": a descriptor it reads and a fresh random token. Before the
// program's own code runs the counter takes both, moves the descriptor out of the way and wipes
// the variable; at the program's exit it writes one line there:
//   kernels=N h2d=BYTES d2h=BYTES kernel_ns=NS longest_kernel_ns=NS host_memory=NAME|none token=TOKEN
// A program that ends without exit() (a crash, _exit) reports nothing, and a line without this
// run's token is none of the counter's.
#pragma once
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

namespace grader::runner {

constexpr int kProgramReportFd = 100;
constexpr const char* kReportVariable = "GRADER_PROGRAM_REPORT";

struct ProgramCounts {
  std::uint64_t kernels = 0;
  std::uint64_t host_to_device_bytes = 0;
  std::uint64_t device_to_host_bytes = 0;
  std::uint64_t kernel_ns = 0;           // all kernels' run time
  std::uint64_t longest_kernel_ns = 0;   // the longest kernel's
  std::string host_memory;               // the first host-visible allocation's function, or ""
};

// The report's line, or nothing where it is missing, not one line of every field, or not of this
// run (`token`).
inline std::optional<ProgramCounts> parse_program_report(const std::string& text, const std::string& token) {
  if (text.empty() || text.find('\n') != text.size() - 1) return std::nullopt;
  ProgramCounts counts;
  std::istringstream fields(text);
  const std::string keys[] = {"kernels", "h2d", "d2h", "kernel_ns", "longest_kernel_ns", "host_memory", "token"};
  std::uint64_t* const slots[] = {&counts.kernels, &counts.host_to_device_bytes, &counts.device_to_host_bytes,
                                  &counts.kernel_ns, &counts.longest_kernel_ns, nullptr, nullptr};
  bool seen[7] = {};
  for (std::string field; fields >> field;) {
    const std::size_t equals = field.find('=');
    if (equals == std::string::npos) return std::nullopt;
    const std::string key = field.substr(0, equals), value = field.substr(equals + 1);
    int k = 0;
    while (k < 7 && keys[k] != key) ++k;
    if (k == 7 || seen[k] || value.empty()) return std::nullopt;
    seen[k] = true;
    if (key == "token") {
      if (token.empty() || value != token) return std::nullopt;
    } else if (key == "host_memory") {
      counts.host_memory = value == "none" ? "" : value;
    } else if (value.size() > 19 || value.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    } else {
      *slots[k] = std::stoull(value);
    }
  }
  for (bool s : seen) {
    if (!s) return std::nullopt;
  }
  return counts;
}

}  // namespace grader::runner
