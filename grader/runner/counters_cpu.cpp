// The runner's counters on the CPU backend: the backend counts its own launches and copies.
#include "cpu_backend/control.hpp"
#include "grader/runner/counters.hpp"

namespace grader::runner {
namespace {

Counters totals() {
  return {cpu_backend::kernels_launched(), cpu_backend::device_to_host_bytes(), {}};
}
Counters last;

}  // namespace

void start_counting() { last = totals(); }

Counters read_and_reset_counters() {
  const Counters now = totals();
  const Counters since{now.kernels - last.kernels, now.device_to_host_bytes - last.device_to_host_bytes, {}};
  last = now;
  return since;
}

void pause_counting(bool) {}

std::string host_memory_problem() {
  const char* api = cpu_backend::host_memory_api();
  return api ? host_memory_message(api) : "";
}  // counting costs the CPU backend nothing worth pausing for

}  // namespace grader::runner
