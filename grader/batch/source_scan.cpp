// The batch grader's view of a submission's source, through the grader's own source rules
// (grader/core/source_rules.hpp), so the text rules of a lab's tests and of the batch grader agree.
//
// Usage: batch_source_scan FILE...
// Prints one JSON object: {"files": [{"path", "forbidden": ["line 3: cub::DeviceScan", ...],
// "stripped": source without comments, literals blanked, line breaks kept, "probes": [{"line",
// "rule", "what"}: what a kernel file has no business doing, grader::probe_uses]}]}. Exit status 0, or 2
// when a file cannot be read.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "grader/core/json_writer.hpp"
#include "grader/core/source_rules.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  grader::JsonWriter json;
  json.begin_object().key("files").begin_array();
  for (int i = 1; i < argc; ++i) {
    std::string source;
    try {
      source = grader::read_text_file(argv[i]);
    } catch (const std::runtime_error& error) {
      std::fprintf(stderr, "error: %s\n", error.what());
      return 2;
    }
    json.begin_object().key("path").value(argv[i]);
    json.key("forbidden").begin_array();
    for (const std::string& use : grader::forbidden_library_uses(source)) json.value(use);
    json.end_array();
    json.key("stripped").value(grader::strip_comments_and_strings(source));
    json.key("probes").begin_array();
    for (const grader::ProbeUse& use : grader::probe_uses(source)) {
      json.begin_object().key("line").value(use.line).key("rule").value(use.rule);
      json.key("what").value(use.what).end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array().end_object();
  std::printf("%s\n", json.text().c_str());
  return 0;
}
