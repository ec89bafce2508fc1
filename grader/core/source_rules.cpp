#include "grader/core/source_rules.hpp"

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace grader {

std::string strip_comments_and_strings(const std::string& source) {
  enum class State { code, line_comment, block_comment, string, character };
  State state = State::code;
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    const char c = source[i];
    const char next = i + 1 < source.size() ? source[i + 1] : '\0';
    switch (state) {
      case State::code:
        if (c == '/' && next == '/') {
          state = State::line_comment;
          ++i;
        } else if (c == '/' && next == '*') {
          state = State::block_comment;
          out += ' ';  // a comment separates tokens
          ++i;
        } else {
          if (c == '"') state = State::string;
          if (c == '\'') state = State::character;
          out += c;
        }
        break;
      case State::line_comment:
        if (c == '\n') {
          state = State::code;
          out += c;
        }
        break;
      case State::block_comment:
        if (c == '*' && next == '/') {
          state = State::code;
          ++i;
        } else if (c == '\n') {
          out += c;
        }
        break;
      case State::string:
      case State::character:
        if (c == '\\' && next != '\0') {
          ++i;  // an escaped character, the quote included
        } else if ((c == '"' && state == State::string) || (c == '\'' && state == State::character)) {
          out += c;
          state = State::code;
        } else if (c == '\n') {
          out += c;  // an unterminated literal ends at the line, as for the compiler
          state = State::code;
        }
        break;
    }
  }
  return out;
}

std::vector<std::string> forbidden_library_uses(const std::string& source) {
  // An include is matched on the raw line (its <path> is not a string literal, and "path" is
  // blanked by the stripping), but only where the stripped line still holds the #include.
  static const std::regex include_line(R"(^\s*#\s*include\s*[<"]\s*((cub|thrust)/[^>"]*)[>"])");
  static const std::regex library_name(R"((^|[^A-Za-z0-9_])((cub|thrust)\s*::\s*[A-Za-z_][A-Za-z0-9_]*))");
  std::vector<std::string> uses;
  std::istringstream raw_lines(source), code_lines(strip_comments_and_strings(source));
  std::string raw, code;
  for (int number = 1; std::getline(code_lines, code); ++number) {
    if (!std::getline(raw_lines, raw)) raw.clear();
    std::smatch match;
    if (code.find("include") != std::string::npos && std::regex_search(raw, match, include_line)) {
      uses.push_back("line " + std::to_string(number) + ": #include <" + match[1].str() + ">");
    }
    for (auto it = std::sregex_iterator(code.begin(), code.end(), library_name);
         it != std::sregex_iterator(); ++it) {
      uses.push_back("line " + std::to_string(number) + ": " + (*it)[2].str());
    }
  }
  return uses;
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace grader
