// The runner's evidence on the CPU backend (evidence.hpp): the counting mode, compiled into the
// graded runner where the host compiler can (labs/meson.build builds its lab file with the counting
// mode's flags and links the counting library: grader/cpu_backend/counting/). This runner defines
// cpu_backend_counting_starts_off, so nothing is counted until the checker asks for evidence; then
// every launch's access sites are, on one host thread. A runner without the counting library (the
// grader's yardstick runner; a host compiler other than g++) has no evidence, and says why.
#include <string>
#include <vector>

#include "grader/cpu_backend/counting/counting.hpp"
#include "grader/runner/evidence.hpp"

// Counting starts off in a runner (grader/cpu_backend/counting/recorder.cpp reads this).
extern "C" void cpu_backend_counting_starts_off() {}

// The counting library's, where it is linked: weak, so a runner without it still links.
extern "C" __attribute__((weak)) bool cpu_backend_counting_start();
namespace cpu_backend::counting {
__attribute__((weak)) std::vector<launch_record> records();
__attribute__((weak)) void clear_records();
__attribute__((weak)) const char* kind_name(access_kind kind);
}  // namespace cpu_backend::counting

namespace grader::runner {
namespace {
bool evidence_on = false;
}  // namespace

bool start_evidence(std::string& why) {
  namespace counting = cpu_backend::counting;
  if (cpu_backend_counting_start == nullptr || counting::records == nullptr || counting::clear_records == nullptr ||
      counting::kind_name == nullptr) {
    why = "this runner was built without the CPU backend's counting mode (it needs g++ on Linux)";
    return false;
  }
  evidence_on = cpu_backend_counting_start();
  if (!evidence_on) why = "the counting mode did not start";
  counting::clear_records();
  return evidence_on;
}

Evidence take_evidence() {
  namespace counting = cpu_backend::counting;
  Evidence evidence;
  evidence.collected = evidence_on;
  if (!evidence_on) return evidence;
  for (const counting::launch_record& launch : counting::records()) {
    EvidenceEntry launched;  // the launch itself: its blocks and threads
    launched.kernel = launch.symbol.empty() ? launch.kernel : launch.symbol;
    launched.kind = "launch";
    launched.warps = launch.blocks;
    launched.threads = launch.blocks * static_cast<std::uint64_t>(launch.block.x) * launch.block.y * launch.block.z;
    evidence.entries.push_back(launched);
    for (const counting::site_counts& site : launch.sites) {
      EvidenceEntry entry;
      entry.kernel = launch.symbol.empty() ? launch.kernel : launch.symbol;  // the function, however launched
      entry.pc = site.pc;
      entry.kind = counting::kind_name(site.kind);
      entry.bytes = site.bytes;
      entry.warps = site.requests;
      entry.threads = site.lanes;
      entry.sectors = site.sectors;
      evidence.entries.push_back(std::move(entry));
    }
  }
  counting::clear_records();
  return evidence;
}

}  // namespace grader::runner
