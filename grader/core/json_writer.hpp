// A small streaming JSON writer: enough for the results files, with correct string escaping.
#pragma once
#include <string>
#include <vector>

namespace grader {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& name);
  JsonWriter& value(const std::string& text);
  JsonWriter& value(const char* text) { return value(std::string(text)); }
  JsonWriter& value(double number);  // NaN and infinities become null: JSON has no such numbers
  JsonWriter& value(long long number);
  JsonWriter& value(int number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(bool flag);
  const std::string& text() const { return out_; }

 private:
  void separate();
  std::string out_;
  std::vector<bool> has_members_;  // one entry per open object/array
  bool after_key_ = false;
};

std::string json_escape(const std::string& text);

}  // namespace grader
