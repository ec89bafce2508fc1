#include "grader/core/results.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "grader/core/results_channel.hpp"  // batch grading's private results channel
#include "grader/core/json_writer.hpp"
#include "grader/core/run_options.hpp"

namespace grader {
namespace {

std::map<std::string, TestPoints>& points_table() {
  static std::map<std::string, TestPoints> table;
  return table;
}

struct CurrentTest {
  std::vector<std::pair<std::string, double>> metrics;
  std::vector<Tier> tiers;
  std::string message;
};
CurrentTest& current() {
  static CurrentTest test;
  return test;
}

class ResultsListener : public ::testing::EmptyTestEventListener {
 public:
  explicit ResultsListener(RunContext context) : context_(std::move(context)) {
    batch_channel::hello(context_);
  }

  void OnTestStart(const ::testing::TestInfo& info) override {
    current() = CurrentTest{};
    batch_channel::test_started(std::string(info.test_suite_name()) + "." + info.name());
  }

  void OnTestPartResult(const ::testing::TestPartResult& part) override {
    std::string& message = current().message;
    if (!message.empty()) message += "\n";
    message += part.message();
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const std::string name = std::string(info.test_suite_name()) + "." + info.name();
    const ::testing::TestResult* result = info.result();
    const std::string status =
        result->Skipped() ? "skipped" : (result->Passed() ? "passed" : "failed");
    records_.push_back(make_record(name, status, points_for(name), current().message,
                                   current().metrics, current().tiers));
    records_.back().needs = tests_needed_by(name);
    batch_channel::test_finished(records_.back());
  }

  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    const RunOptions& options = run_options();
    if (options.results_path.empty()) return;
    const std::filesystem::path path(options.results_path);
    std::error_code ignored;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ignored);
    // Write then rename, so a reader never sees half a file.
    const std::string temporary = options.results_path + ".partial";
    apply_gates(records_);
    {
      std::ofstream out(temporary);
      out << results_json(options.lab, options.submission, options.seed, context_, records_) << "\n";
    }
    std::filesystem::rename(temporary, path, ignored);
    if (ignored) std::fprintf(stderr, "could not write %s\n", options.results_path.c_str());
  }

 private:
  RunContext context_;
  std::vector<TestRecord> records_;
};

}  // namespace

bool register_points(const std::string& test_name, TestPoints points) {
  points_table()[test_name] = points;
  return true;
}

TestPoints points_for(const std::string& test_name) {
  const auto found = points_table().find(test_name);
  return found == points_table().end() ? TestPoints{} : found->second;
}

Headline& headline_entry() {
  static Headline entry;
  return entry;
}

bool declare_headline(const std::string& test_name, const std::string& kernel) {
  headline_entry() = {test_name, kernel};
  return true;
}

const Headline& headline() { return headline_entry(); }

const char* kind_name(TestKind kind) {
  switch (kind) {
    case TestKind::kEdge: return "edge";
    case TestKind::kSpeed: return "speed";
    default: return "main";
  }
}

std::vector<std::string> tests_needed_by(const std::string& test_name) {
  if (points_for(test_name).kind != TestKind::kEdge) return {};
  const std::string suite = test_name.substr(0, test_name.find('.') + 1);
  std::vector<std::string> suite_main, all_main;
  for (const auto& [name, points] : points_table()) {
    if (points.kind != TestKind::kMain) continue;
    all_main.push_back(name);
    if (name.compare(0, suite.size(), suite) == 0) suite_main.push_back(name);
  }
  return suite_main.empty() ? all_main : suite_main;
}

void apply_gates(std::vector<TestRecord>& records) {
  // A needed test that did not run (skipped, or not in this run) does not gate; one must have run.
  std::map<std::string, std::string> status;
  for (const TestRecord& r : records) status[r.name] = r.status;
  for (TestRecord& r : records) {
    std::string missing, all;
    bool ran = false;
    for (const std::string& needed : r.needs) {
      all += (all.empty() ? "" : ", ") + needed;
      const auto found = status.find(needed);
      if (found == status.end() || found->second == "skipped") continue;
      ran = true;
      if (found->second != "passed") missing += (missing.empty() ? "" : ", ") + needed;
    }
    if (!r.needs.empty() && !ran) missing = all;
    if (missing.empty() || r.score == 0) continue;
    r.message += std::string(r.message.empty() ? "" : "\n") + kGateMessage + missing;
    r.score = 0;
  }
}

void record_metric(const std::string& name, double value) {
  current().metrics.emplace_back(name, value);
  ::testing::Test::RecordProperty(name, std::to_string(value));
}

void record_launched_kernel(const std::string& name) {
  const std::string metric = kLaunchedMetricPrefix + name;
  for (const auto& [known, value] : current().metrics) {
    if (known == metric) return;
  }
  record_metric(metric, 1);
}

void record_note(const std::string& text) {
  std::string& message = current().message;
  message += (message.empty() ? "" : "\n") + text;
  std::printf("[ note     ] %s\n", text.c_str());
}

void record_tier(const std::string& name, bool met, const std::string& detail) {
  current().tiers.push_back({name, met, detail});
  std::printf("[ tier     ] %s: %s (%s)\n", name.c_str(), met ? "met" : "not met", detail.c_str());
}

TestRecord make_record(const std::string& name, const std::string& status, TestPoints points,
                       const std::string& message, std::vector<std::pair<std::string, double>> metrics,
                       std::vector<Tier> tiers) {
  TestRecord record{name, status, points, 0, message, std::move(metrics), std::move(tiers), {}};
  if (status == "passed") {
    record.score = points.pass;
    for (const Tier& tier : record.tiers) {
      if (tier.name == "stretch" && tier.met) record.score += points.stretch;
    }
  }
  return record;
}

std::string results_json(const std::string& lab, const std::string& submission, std::uint64_t seed,
                         const RunContext& context, const std::vector<TestRecord>& records) {
  double score = 0, max_score = 0;
  for (const TestRecord& r : records) {
    score += r.score;
    max_score += r.points.pass + r.points.stretch;
  }
  JsonWriter json;
  json.begin_object();
  json.key("schema").value(kResultsSchema);
  json.key("lab").value(lab);
  json.key("submission").value(submission);
  json.key("backend").value(context.backend);
  json.key("device").value(context.device);
  json.key("seed").value(static_cast<long long>(seed));
  json.key("score").value(score);
  json.key("max_score").value(max_score);
  if (!headline().test.empty()) {
    json.key("headline").begin_object().key("test").value(headline().test);
    json.key("kernel").value(headline().kernel).end_object();
  }
  json.key("tests").begin_array();
  for (const TestRecord& r : records) {
    json.begin_object();
    json.key("name").value(r.name);
    json.key("status").value(r.status);
    json.key("kind").value(kind_name(r.points.kind));
    json.key("score").value(r.score);
    json.key("max_score").value(r.points.pass + r.points.stretch);
    json.key("message").value(r.message);
    json.key("needs").begin_array();
    for (const std::string& needed : r.needs) json.value(needed);
    json.end_array();
    json.key("metrics").begin_object();
    for (const auto& [metric, value] : r.metrics) json.key(metric).value(value);
    json.end_object();
    json.key("tiers").begin_array();
    for (const Tier& tier : r.tiers) {
      json.begin_object().key("name").value(tier.name).key("met").value(tier.met);
      json.key("detail").value(tier.detail).end_object();
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.text();
}

::testing::TestEventListener* new_results_listener(const RunContext& context) {
  return new ResultsListener(context);
}

}  // namespace grader
