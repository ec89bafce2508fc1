#include "grader/core/json_writer.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace grader {

std::string json_escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char code[8];
          std::snprintf(code, sizeof code, "\\u%04x", c);
          out += code;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_members_.empty()) {
    if (has_members_.back()) out_ += ",";
    has_members_.back() = true;
  }
}

JsonWriter& JsonWriter::begin_object() {
  separate();
  out_ += "{";
  has_members_.push_back(false);
  return *this;
}
JsonWriter& JsonWriter::end_object() {
  has_members_.pop_back();
  out_ += "}";
  return *this;
}
JsonWriter& JsonWriter::begin_array() {
  separate();
  out_ += "[";
  has_members_.push_back(false);
  return *this;
}
JsonWriter& JsonWriter::end_array() {
  has_members_.pop_back();
  out_ += "]";
  return *this;
}
JsonWriter& JsonWriter::key(const std::string& name) {
  separate();
  out_ += "\"" + json_escape(name) + "\":";
  after_key_ = true;
  return *this;
}
JsonWriter& JsonWriter::value(const std::string& text) {
  separate();
  out_ += "\"" + json_escape(text) + "\"";
  return *this;
}
JsonWriter& JsonWriter::value(double number) {
  separate();
  if (!std::isfinite(number)) {
    out_ += "null";
    return *this;
  }
  // Whole numbers as integers (33554432, not 3.35544e+07); others with the digits that read back
  // to the same double.
  char digits[32];
  if (number == std::trunc(number) && std::fabs(number) < 9007199254740992.0) {
    std::snprintf(digits, sizeof digits, "%.0f", number);
  } else {
    for (int precision = 15; precision <= 17; ++precision) {  // the shortest that reads back
      std::snprintf(digits, sizeof digits, "%.*g", precision, number);
      if (std::strtod(digits, nullptr) == number) break;
    }
  }
  out_ += digits;
  return *this;
}
JsonWriter& JsonWriter::value(long long number) {
  separate();
  out_ += std::to_string(number);
  return *this;
}
JsonWriter& JsonWriter::value(bool flag) {
  separate();
  out_ += flag ? "true" : "false";
  return *this;
}

}  // namespace grader
