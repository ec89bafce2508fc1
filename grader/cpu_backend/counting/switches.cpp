// The counting mode's two switches (races.hpp): the counts, and the race detector.
#include <cstdlib>
#include <cstring>

#include "recorder.hpp"

namespace cpu_backend::counting {
namespace {

bool switched_on(const char* variable, bool otherwise) {
    const char* value = std::getenv(variable);
    if (value == nullptr || *value == '\0') return otherwise;
    return std::strcmp(value, "0") != 0;
}

}  // namespace

void detail::read_switches(bool counts_from_start) {
    counting_on = switched_on("CUDA_CPU_BACKEND_COUNTING", counts_from_start);
    race::enabled = switched_on("CUDA_CPU_BACKEND_RACES", false);
    recording = counting_on || race::enabled;
}

void set_race_detection(bool on) {
    if (on) detail::install_observer();
    detail::race::enabled = on;
    detail::recording = detail::counting_on || on;
}
bool race_detection() { return detail::race::enabled; }

void set_counting(bool on) {
    if (on) detail::install_observer();
    detail::counting_on = on;
    detail::recording = on || detail::race::enabled;
}
bool counting() { return detail::counting_on; }

}  // namespace cpu_backend::counting
