#include "grader/core/compare.hpp"

#include "grader/core/patterns.hpp"

namespace grader {
namespace {

// "bin" -> "bins", "CDF entry" -> "CDF entries".
std::string plural(const std::string& noun) {
  if (noun.size() > 1 && noun.back() == 'y' && std::string("aeiou").find(noun[noun.size() - 2]) == std::string::npos) {
    return noun.substr(0, noun.size() - 1) + "ies";
  }
  return noun + "s";
}

}  // namespace

std::string Comparison::describe(const std::string& entry) const {
  std::ostringstream text;
  if (matches()) {
    text << "all " << entries << " " << plural(entry) << " match";
    return text.str();
  }
  text << wrong << " of " << entries << " " << plural(entry) << " wrong; total " << got_total
       << ", expected " << expected_total;
  if (poisoned > 0) {
    text << "; " << poisoned << " still hold the poison value 0x" << std::hex << kPoisonWord
         << std::dec << " (nothing wrote them)";
  }
  for (const Mismatch& m : first_wrong) {
    text << "\n  " << entry << " " << m.index << ": expected " << m.expected << ", got " << m.got;
    if (static_cast<std::uint32_t>(m.got) == kPoisonWord) text << " (poison: never written)";
  }
  if (wrong > first_wrong.size()) text << "\n  ... and " << wrong - first_wrong.size() << " more";
  return text.str();
}

}  // namespace grader
