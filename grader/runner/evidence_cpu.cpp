// The runner's evidence on the CPU backend (evidence.hpp): the counting mode, compiled into the
// graded runner where the host compiler can (labs/meson.build builds its lab file with the counting
// mode's flags and links the counting library: grader/cpu_backend/counting/). This runner defines
// cpu_backend_counting_starts_off, so nothing is counted until the checker asks for evidence; then
// every launch's access sites are, on one host thread; in the race pass the race detector watches
// every access instead, counting nothing (races.hpp): each call's evidence carries the witnesses
// of its launches. A runner without the
// counting library (the grader's yardstick runner; a host compiler other than g++) has no evidence,
// and says why.
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
__attribute__((weak)) void set_race_detection(bool on);
__attribute__((weak)) void set_counting(bool on);
__attribute__((weak)) std::vector<race_witness> races();
__attribute__((weak)) std::vector<std::string> races_unchecked();
__attribute__((weak)) std::string races_json(const std::vector<race_witness>& witnesses,
                                             const std::vector<std::string>& unchecked);
}  // namespace cpu_backend::counting

namespace grader::runner {
namespace {
bool evidence_on = false;
bool races_on = false;

bool race_detector_linked() {
  namespace counting = cpu_backend::counting;
  return counting::set_race_detection != nullptr && counting::set_counting != nullptr && counting::races != nullptr &&
         counting::races_unchecked != nullptr && counting::races_json != nullptr;
}

// The witnesses of the launches since the last clear, as JSON of at most kMaxRacesText bytes: past
// it, the last witnesses are left out and a sentence in "unchecked" says how many.
std::string race_witnesses() {
  namespace counting = cpu_backend::counting;
  std::vector<counting::race_witness> found = counting::races();
  std::vector<std::string> unchecked = counting::races_unchecked();
  const std::size_t all = found.size();
  for (;;) {
    std::vector<std::string> said = unchecked;
    if (found.size() < all) {
      said.push_back(std::to_string(all - found.size()) + " more race witnesses of this call were left out (too long)");
    }
    std::string text = counting::races_json(found, said);
    if (text.size() <= kMaxRacesText || found.empty()) return text.size() <= kMaxRacesText ? text : std::string();
    found.pop_back();
  }
}
}  // namespace

bool start_evidence(std::string& why, bool races) {
  namespace counting = cpu_backend::counting;
  if (cpu_backend_counting_start == nullptr || counting::records == nullptr || counting::clear_records == nullptr ||
      counting::kind_name == nullptr) {
    why = "this runner was built without the CPU backend's counting mode (it needs g++ on Linux)";
    return false;
  }
  evidence_on = cpu_backend_counting_start();
  if (!evidence_on) why = "the counting mode did not start";
  races_on = evidence_on && races && race_detector_linked();
  if (races_on) {
    counting::set_race_detection(true);  // the graded build itself is watched
    // The race pass is judged on the witnesses alone: its counts (the evidence pass's job) would
    // cost a third of its time. Launches are still recorded, with no access sites.
    counting::set_counting(false);
  }
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
  if (races_on) evidence.races = race_witnesses();  // before the clear, which drops them too
  counting::clear_records();
  return evidence;
}

}  // namespace grader::runner
