#include "grader/core/guard_damage.hpp"

#include <sstream>

#include "grader/core/patterns.hpp"

namespace grader {
namespace {

// Offsets (in elements) of the first and last damaged bytes, or false when the zone is intact.
bool damaged_span(const std::vector<unsigned char>& zone, std::size_t& first, std::size_t& last) {
  bool found = false;
  for (std::size_t i = 0; i < zone.size(); ++i) {
    if (zone[i] == kGuardByte) continue;
    if (!found) first = i;
    last = i;
    found = true;
  }
  return found;
}

}  // namespace

std::string describe_guard_damage(const std::vector<unsigned char>& before,
                                  const std::vector<unsigned char>& after, std::size_t element_size,
                                  std::size_t count) {
  std::ostringstream text;
  std::size_t first = 0, last = 0;
  if (damaged_span(before, first, last)) {
    const std::size_t zone = before.size();
    text << "out-of-bounds write before the start of the array: index "
         << -static_cast<long long>((zone - first + element_size - 1) / element_size);
    if (last != first) {
      text << " to " << -static_cast<long long>((zone - last + element_size - 1) / element_size);
    }
  }
  if (damaged_span(after, first, last)) {
    if (text.tellp() > 0) text << "; ";
    text << "out-of-bounds write past the end of the array (size " << count << "): index "
         << count + first / element_size;
    if (last / element_size != first / element_size) text << " to " << count + last / element_size;
  }
  return text.str();
}

}  // namespace grader
