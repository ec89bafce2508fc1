// Points, metrics and the events of each graded test. Each graded test declares its points where it
// is defined (GRADED_TEST); speed tests may add a stretch tier. The checker only reports: each test's
// start and end (status, points, message, metrics, tiers, needs) go over the private results channel
// (results_channel.hpp) to the harness, which scores them and writes the results
// (grader/student_runs.py, grader/runs/scoring.py). Points reward work: an edge-case, shape or rule
// test (GRADED_EDGE_TEST), which code that does nothing may pass, earns its points only when the main
// tests of its version (suite) pass; the harness applies that rule.
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "grader/runner/evidence.hpp"

namespace grader {

enum class TestKind { kMain, kEdge, kSpeed };

struct TestPoints {
  double pass = 0;     // earned when the test passes
  double stretch = 0;  // earned on top when a passing speed test also meets its stretch tier
  TestKind kind = TestKind::kMain;
};

struct Tier {
  std::string name;
  bool met = false;
  std::string detail;  // e.g. "4.1x faster than the baseline; needs 4x"
};

struct TestRecord {
  std::string name;    // "Suite.Test"
  std::string status;  // passed, failed or skipped
  TestPoints points;
  std::string message;  // failure or skip messages, for the student
  std::vector<std::pair<std::string, double>> metrics;
  std::vector<Tier> tiers;
  std::vector<std::string> needs;  // tests that must pass for this one's points (edge tests)
  // In the evidence pass (RunOptions::evidence): what the test's calls executed, per call.
  std::vector<std::pair<std::string, runner::Evidence>> evidence;
};

// The lab's headline kernel: the speed test whose figures the score table shows for the lab.
struct Headline {
  std::string test;    // "Lab03Speed.SharedGridStrideIsFourTimesFasterThanTheBaseline"
  std::string kernel;  // "v2 shared grid-stride"
};
bool declare_headline(const std::string& test_name, const std::string& kernel);
const Headline& headline();  // empty test when the lab declares none
const char* kind_name(TestKind kind);  // "main", "edge", "speed"

struct RunContext {
  std::string backend;  // "cuda" or "cpu"
  std::string device;   // "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs)"
};

// Called at static initialisation by GRADED_TEST; returns true so it can initialise a constant.
bool register_points(const std::string& test_name, TestPoints points);
TestPoints points_for(const std::string& test_name);
// What an edge test's points wait for: the main tests of its suite, or of the whole program when
// its suite has none (a rule test). Empty for main and speed tests.
std::vector<std::string> tests_needed_by(const std::string& test_name);

// Inside a running test: a figure for the report ("time_ms", "gbps", "percent_of_read_bw",
// "speedup_vs_baseline") and a tier's outcome. A stretch tier never fails the test.
void record_metric(const std::string& name, double value);
// A kernel the student's code launched in this test, as the metric "launched:NAME" (once per name):
// a technique check earns points only for a kernel its correctness tests launched (runs/scoring.py).
constexpr const char* kLaunchedMetricPrefix = "launched:";
void record_launched_kernel(const std::string& name);
// What one call of the student's function executed (the evidence pass), for the test's record.
void record_evidence(const std::string& function, const runner::Evidence& evidence);
void record_tier(const std::string& name, bool met, const std::string& detail);
// A line for the test's message that does not fail it (e.g. "timed on a throttled GPU").
void record_note(const std::string& text);

// Reports each test's start and end over the results channel (no channel: nothing to report to).
::testing::TestEventListener* new_results_listener(const RunContext& context);

}  // namespace grader

// A test with points: GRADED_TEST(Lab01Slices, MatchesCpuOnUniformSamples, 1) { ... }
#define GRADED_TEST(fixture, name, points)                                                      \
  static const bool fixture##_##name##_registered =                                             \
      ::grader::register_points(#fixture "." #name, ::grader::TestPoints{(points), 0});         \
  TEST_F(fixture, name)

// An edge-case, shape or rule test: its points count only when the main tests of its suite pass.
#define GRADED_EDGE_TEST(fixture, name, points)                                                 \
  static const bool fixture##_##name##_registered = ::grader::register_points(                  \
      #fixture "." #name, ::grader::TestPoints{(points), 0, ::grader::TestKind::kEdge});        \
  TEST_F(fixture, name)

// The lab's headline speed test (one per lab): its figures are the lab's row in the score table.
#define GRADED_HEADLINE_SPEED_TEST(fixture, name, pass_points, stretch_points, kernel)          \
  static const bool fixture##_##name##_headline =                                               \
      ::grader::declare_headline(#fixture "." #name, (kernel));                                 \
  GRADED_SPEED_TEST(fixture, name, pass_points, stretch_points)

// A speed test: `pass_points` when its threshold is met, `stretch_points` more for the stretch tier.
#define GRADED_SPEED_TEST(fixture, name, pass_points, stretch_points)                           \
  static const bool fixture##_##name##_registered = ::grader::register_points(                  \
      #fixture "." #name,                                                                       \
      ::grader::TestPoints{(pass_points), (stretch_points), ::grader::TestKind::kSpeed});       \
  TEST_F(fixture, name)
