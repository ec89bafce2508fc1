// What the graded runner saw its kernels execute, in evidence mode: the technique checks' evidence
// that the work was done the way a lab teaches (grader/technique/evidence.py reads it). The checker
// turns the mode on for a runner it starts for that (RunnerOptions::evidence); each call's reply
// then carries what its launches executed since the last call:
//   on a GPU, per kernel (its mangled name) and SASS instruction (its offset in the kernel): warp
//   instructions executed, threads that executed it with its predicate on, and global sectors it
//   accessed, from CUPTI's SASS metrics (evidence_cuda.cu);
//   on the CPU backend, per kernel (as launched) and access site: its kind (global_load, ...,
//   shuffle), bytes per lane, warp-level requests, lanes and sectors, from the counting mode
//   compiled into the graded runner (evidence_cpu.cpp); and the race detector's witnesses of the
//   call's launches (`races`: counting::races_json's text, at most kMaxRacesText bytes; the
//   grader's race verdicts read it: grader/counting/race_verdicts.py).
// Nothing here is trusted for more than it can show: a runner's evidence is checked for size and
// form by the checker, and a runner with none earns no technique point (the checks fail closed).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "grader/runner/wire.hpp"

namespace grader::runner {

struct EvidenceEntry {
  std::string kernel;
  std::uint64_t pc = 0;        // GPU: the instruction's offset in the kernel; CPU: the site's pc
  std::string kind;            // CPU: the access kind; GPU: empty (the SASS at pc says)
  std::uint32_t bytes = 0;     // CPU: bytes per lane
  std::uint64_t warps = 0;     // warp-level executions (requests)
  std::uint64_t threads = 0;   // thread-level executions (lanes; on a GPU, predicate on)
  std::uint64_t sectors = 0;   // 32-byte global memory sectors accessed
};

struct Evidence {
  bool collected = false;   // evidence mode is on in this runner
  std::string unavailable;  // why none could be collected ("" when it was)
  std::vector<EvidenceEntry> entries;
  // CPU backend: {"schema": "cpu-backend-races/v1", "races": [...], "unchecked": [...]} of this
  // call's launches; "" where the race detector did not watch them (a GPU; a runner without it).
  std::string races;
};

constexpr std::size_t kMaxEvidenceEntries = 8192;
constexpr std::size_t kMaxEvidenceText = 256;
constexpr std::size_t kMaxRacesText = 16 * 1024;  // witnesses past it are left out, and it says so

// The runner's side (evidence_cuda.cu, evidence_cpu.cpp): turns the mode on, before the student's
// first kernel runs (false, with `why`, where it cannot be), with the race detector where `races`
// and the backend has one (the CPU backend's); then what ran since the last take.
bool start_evidence(std::string& why, bool races);
Evidence take_evidence();

inline void put_evidence(Writer& out, const Evidence& evidence) {
  out.put(static_cast<std::uint8_t>(evidence.collected));
  out.put_string(evidence.unavailable.substr(0, kMaxEvidenceText));
  const std::size_t count = std::min(evidence.entries.size(), kMaxEvidenceEntries);
  out.put(static_cast<std::uint32_t>(count));
  for (std::size_t i = 0; i < count; ++i) {
    const EvidenceEntry& e = evidence.entries[i];
    out.put_string(e.kernel.substr(0, kMaxEvidenceText));
    out.put(e.pc);
    out.put_string(e.kind.substr(0, 32));
    out.put(e.bytes);
    out.put(e.warps);
    out.put(e.threads);
    out.put(e.sectors);
  }
  out.put_string(evidence.races.size() <= kMaxRacesText ? evidence.races : std::string());
}

inline Evidence get_evidence(Reader& in) {
  Evidence evidence;
  evidence.collected = in.get<std::uint8_t>() != 0;
  evidence.unavailable = in.get_string();
  if (evidence.unavailable.size() > kMaxEvidenceText) throw ProtocolError("evidence text too long");
  const auto count = in.get<std::uint32_t>();
  if (count > kMaxEvidenceEntries) throw ProtocolError("too much evidence");
  for (std::uint32_t i = 0; i < count; ++i) {
    EvidenceEntry e;
    e.kernel = in.get_string();
    e.pc = in.get<std::uint64_t>();
    e.kind = in.get_string();
    if (e.kernel.size() > kMaxEvidenceText || e.kind.size() > 32) throw ProtocolError("evidence text too long");
    e.bytes = in.get<std::uint32_t>();
    e.warps = in.get<std::uint64_t>();
    e.threads = in.get<std::uint64_t>();
    e.sectors = in.get<std::uint64_t>();
    evidence.entries.push_back(std::move(e));
  }
  evidence.races = in.get_string();
  if (evidence.races.size() > kMaxRacesText) throw ProtocolError("race witnesses too long");
  return evidence;
}

}  // namespace grader::runner
