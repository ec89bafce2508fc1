// What a whole student program (lab 00) did on the GPU, counted inside it as a runner's calls are:
// on a GPU by the grader's CUPTI library, preloaded into it (LD_PRELOAD, program_counters_cuda.cpp),
// on the CPU backend by the backend itself (its host_work.cpp). The checker gives the counter
// kReportVariable = "FD:TOKEN": a descriptor it reads and a fresh random token. Before the
// program's own code runs the counter takes both, moves the descriptor out of the way and wipes
// the variable; at the program's exit it writes one line there:
//   kernels=N h2d=BYTES d2h=BYTES kernel_ns=NS longest_kernel_ns=NS host_memory=NAME|none
//   d2h_heads=V,V,...;V,V,...|none token=TOKEN
// d2h_heads: the first kHeadValues int32 of each of its last (up to 4) device-to-host copies of at
// least that many, oldest first: lab 00 compares the bins it printed with the bins it copied back.
// A program that ends without exit() (a crash, _exit) reports nothing, and a line without this
// run's token is none of the counter's.
#pragma once
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace grader::runner {

constexpr int kProgramReportFd = 100;
constexpr std::size_t kHeadValues = 10;
constexpr const char* kReportVariable = "GRADER_PROGRAM_REPORT";

struct ProgramCounts {
  std::uint64_t kernels = 0;
  std::uint64_t host_to_device_bytes = 0;
  std::uint64_t device_to_host_bytes = 0;
  std::uint64_t kernel_ns = 0;           // all kernels' run time
  std::uint64_t longest_kernel_ns = 0;   // the longest kernel's
  std::string host_memory;               // the first host-visible allocation's function, or ""
  std::vector<std::vector<long long>> d2h_heads;  // the first values of its last copies back
};

// "V,V,...;V,V,..." (kHeadValues each) or "none" into `heads`; false where malformed.
inline bool parse_heads(const std::string& text, std::vector<std::vector<long long>>& heads) {
  if (text == "none") return true;
  if (text.back() == ';') return false;
  std::istringstream copies(text);
  for (std::string copy; std::getline(copies, copy, ';');) {
    std::vector<long long> values;
    std::istringstream items(copy);
    for (std::string item; std::getline(items, item, ',');) {
      const std::size_t digits = item.find_first_not_of('-') == 1 ? 1 : 0;
      if (item.size() <= digits || item.size() > 11 ||
          item.find_first_not_of("0123456789", digits) != std::string::npos) {
        return false;
      }
      values.push_back(std::stoll(item));
    }
    if (values.size() != kHeadValues) return false;
    heads.push_back(values);
  }
  return !heads.empty() && heads.size() <= 4;
}

// The report's line, or nothing where it is missing, not one line of every field, or not of this
// run (`token`).
inline std::optional<ProgramCounts> parse_program_report(const std::string& text, const std::string& token) {
  if (text.empty() || text.find('\n') != text.size() - 1) return std::nullopt;
  ProgramCounts counts;
  std::istringstream fields(text);
  constexpr int kKeys = 8;
  const std::string keys[kKeys] = {"kernels", "h2d", "d2h", "kernel_ns", "longest_kernel_ns", "host_memory",
                                   "d2h_heads", "token"};
  std::uint64_t* const slots[kKeys] = {&counts.kernels, &counts.host_to_device_bytes,
                                       &counts.device_to_host_bytes, &counts.kernel_ns,
                                       &counts.longest_kernel_ns, nullptr, nullptr, nullptr};
  bool seen[kKeys] = {};
  for (std::string field; fields >> field;) {
    const std::size_t equals = field.find('=');
    if (equals == std::string::npos) return std::nullopt;
    const std::string key = field.substr(0, equals), value = field.substr(equals + 1);
    int k = 0;
    while (k < kKeys && keys[k] != key) ++k;
    if (k == kKeys || seen[k] || value.empty()) return std::nullopt;
    seen[k] = true;
    if (key == "token") {
      if (token.empty() || value != token) return std::nullopt;
    } else if (key == "d2h_heads") {
      if (!parse_heads(value, counts.d2h_heads)) return std::nullopt;
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
