#include "grader/core/results.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "grader/core/results_channel.hpp"  // batch grading's private results channel

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
  std::vector<std::pair<std::string, runner::Evidence>> evidence;
};
CurrentTest& current() {
  static CurrentTest test;
  return test;
}

class ResultsListener : public ::testing::EmptyTestEventListener {
 public:
  explicit ResultsListener(const RunContext& context) { results_channel::hello(context); }

  void OnTestStart(const ::testing::TestInfo& info) override {
    current() = CurrentTest{};
    results_channel::test_started(std::string(info.test_suite_name()) + "." + info.name());
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
    results_channel::test_finished(TestRecord{name, status, points_for(name), current().message,
                                            current().metrics, current().tiers, tests_needed_by(name),
                                            current().evidence});
  }
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

void record_metric(const std::string& name, double value) {
  current().metrics.emplace_back(name, value);
  ::testing::Test::RecordProperty(name, std::to_string(value));
}

void record_evidence(const std::string& function, const runner::Evidence& evidence) {
  current().evidence.emplace_back(function, evidence);
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

::testing::TestEventListener* new_results_listener(const RunContext& context) {
  return new ResultsListener(context);
}

}  // namespace grader
