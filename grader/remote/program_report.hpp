// What a whole student program (lab 00) did on the GPU, counted inside it as a runner's calls are:
// on a GPU by the grader's CUPTI library, which the driver loads into it (CUDA_INJECTION64_PATH,
// program_counters_cuda.cpp), on the CPU backend by the backend itself (its host_work.cpp). Either
// writes one line at the program's exit on descriptor kProgramReportFd, which the checker opened
// and the counter moves out of the way before the program's main():
//   kernels=N h2d=BYTES d2h=BYTES kernel_ns=NS longest_kernel_ns=NS host_memory=NAME|none
// A program that ends without exit() (a crash, _exit) or never starts CUDA reports nothing.
#pragma once
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

namespace grader::remote {

constexpr int kProgramReportFd = 100;

struct ProgramCounts {
  std::uint64_t kernels = 0;
  std::uint64_t host_to_device_bytes = 0;
  std::uint64_t device_to_host_bytes = 0;
  std::uint64_t kernel_ns = 0;           // all kernels' run time
  std::uint64_t longest_kernel_ns = 0;   // the longest kernel's
  std::string host_memory;               // the first host-visible allocation's function, or ""
};

// The report's line, or nothing where it is missing or not one line of every field.
inline std::optional<ProgramCounts> parse_program_report(const std::string& text) {
  if (text.empty() || text.find('\n') != text.size() - 1) return std::nullopt;
  ProgramCounts counts;
  std::istringstream fields(text);
  const std::string keys[] = {"kernels", "h2d", "d2h", "kernel_ns", "longest_kernel_ns", "host_memory"};
  std::uint64_t* const slots[] = {&counts.kernels, &counts.host_to_device_bytes, &counts.device_to_host_bytes,
                                  &counts.kernel_ns, &counts.longest_kernel_ns, nullptr};
  bool seen[6] = {};
  for (std::string field; fields >> field;) {
    const std::size_t equals = field.find('=');
    if (equals == std::string::npos) return std::nullopt;
    const std::string key = field.substr(0, equals), value = field.substr(equals + 1);
    int k = 0;
    while (k < 6 && keys[k] != key) ++k;
    if (k == 6 || seen[k] || value.empty()) return std::nullopt;
    seen[k] = true;
    if (slots[k] == nullptr) {
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

}  // namespace grader::remote
