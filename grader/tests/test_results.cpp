#include <gtest/gtest.h>

#include "grader/core/json_writer.hpp"
#include "grader/core/results.hpp"

namespace {

TEST(JsonWriter, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(grader::json_escape("a\"b\\c\nd\x01"), "a\\\"b\\\\c\\nd\\u0001");
}

TEST(JsonWriter, WritesWholeNumbersExactlyAndOthersShortest) {
  grader::JsonWriter json;
  json.begin_array().value(33554432.0).value(0.114).value(1.0 / 3).value(-2.0).end_array();
  EXPECT_EQ(json.text(), "[33554432,0.114,0.3333333333333333,-2]");
}

TEST(JsonWriter, SeparatesMembersAndNestsContainers) {
  grader::JsonWriter json;
  json.begin_object().key("a").value(1).key("b").begin_array().value(true).value("x").end_array();
  json.key("c").value(0.5).end_object();
  EXPECT_EQ(json.text(), "{\"a\":1,\"b\":[true,\"x\"],\"c\":0.5}");
}

TEST(JsonWriter, WritesNonFiniteNumbersAsNull) {
  grader::JsonWriter json;
  json.begin_array().value(1.0 / 0.0).end_array();
  EXPECT_EQ(json.text(), "[null]");
}

TEST(Points, APassedTestEarnsItsPassPoints) {
  const auto record = grader::make_record("S.T", "passed", {2, 1}, "", {}, {});
  EXPECT_EQ(record.score, 2);
}

TEST(Points, AMetStretchTierAddsItsPoints) {
  const auto record = grader::make_record("S.T", "passed", {2, 1}, "", {}, {{"stretch", true, ""}});
  EXPECT_EQ(record.score, 3);
}

TEST(Points, FailedAndSkippedTestsEarnNothing) {
  EXPECT_EQ(grader::make_record("S.T", "failed", {2, 1}, "", {}, {{"stretch", true, ""}}).score, 0);
  EXPECT_EQ(grader::make_record("S.T", "skipped", {2, 0}, "", {}, {}).score, 0);
}

TEST(Points, AreRegisteredByName) {
  grader::register_points("Registered.Test", {3, 1});
  EXPECT_EQ(grader::points_for("Registered.Test").pass, 3);
  EXPECT_EQ(grader::points_for("Unknown.Test").pass, 0);
}

TEST(Points, AnEdgeTestNeedsTheMainTestsOfItsSuite) {
  using grader::TestKind;
  grader::register_points("Gate.MatchesCpu", {2, 0, TestKind::kMain});
  grader::register_points("Gate.MatchesCpuOnOddSizes", {1, 0, TestKind::kMain});
  grader::register_points("Gate.IsFast", {1, 1, TestKind::kSpeed});
  grader::register_points("Gate.HandlesAnEmptyInput", {1, 0, TestKind::kEdge});
  EXPECT_EQ(grader::tests_needed_by("Gate.HandlesAnEmptyInput"),
            (std::vector<std::string>{"Gate.MatchesCpu", "Gate.MatchesCpuOnOddSizes"}));
  EXPECT_TRUE(grader::tests_needed_by("Gate.MatchesCpu").empty());
  EXPECT_TRUE(grader::tests_needed_by("Gate.IsFast").empty());
}

TEST(Points, AnEdgeTestEarnsNothingUntilItsMainTestsPass) {
  auto edge = grader::make_record("S.HandlesAnEmptyInput", "passed", {1, 0, grader::TestKind::kEdge},
                                  "", {}, {});
  edge.needs = {"S.MatchesCpu"};
  std::vector<grader::TestRecord> records = {
      grader::make_record("S.MatchesCpu", "failed", {2, 0}, "bin 3 wrong", {}, {}), edge};
  grader::apply_gates(records);
  EXPECT_EQ(records[1].status, "passed");
  EXPECT_EQ(records[1].score, 0);
  EXPECT_NE(records[1].message.find("S.MatchesCpu"), std::string::npos) << records[1].message;

  records[0] = grader::make_record("S.MatchesCpu", "passed", {2, 0}, "", {}, {});
  records[1] = edge;
  grader::apply_gates(records);
  EXPECT_EQ(records[1].score, 1);
  EXPECT_EQ(records[1].message, "");
}

TEST(Points, AnEdgeTestWhoseMainTestsDidNotRunEarnsNothing) {
  auto edge = grader::make_record("S.HandlesAnEmptyInput", "passed", {1, 0, grader::TestKind::kEdge},
                                  "", {}, {});
  edge.needs = {"S.MatchesCpu"};
  std::vector<grader::TestRecord> records = {edge};
  grader::apply_gates(records);
  EXPECT_EQ(records[0].score, 0);
}

TEST(Points, ANeededTestThatSkippedHereDoesNotGate) {
  // Lab 06's real-image tests skip where the machine has no photograph (the batch's sandbox):
  // the empty-image test still earns its point once the tests that ran passed.
  auto edge = grader::make_record("S.HandlesAnEmptyInput", "passed", {1, 0, grader::TestKind::kEdge},
                                  "", {}, {});
  edge.needs = {"S.MatchesCpu", "S.MatchesCpuOnTheRealImage", "S.NotInThisRun"};
  std::vector<grader::TestRecord> records = {
      grader::make_record("S.MatchesCpu", "passed", {2, 0}, "", {}, {}),
      grader::make_record("S.MatchesCpuOnTheRealImage", "skipped", {1, 0}, "no real image", {}, {}), edge};
  grader::apply_gates(records);
  EXPECT_EQ(records[2].score, 1) << records[2].message;

  records[0] = grader::make_record("S.MatchesCpu", "skipped", {2, 0}, "", {}, {});
  records[2] = edge;
  grader::apply_gates(records);
  EXPECT_EQ(records[2].score, 0) << "no needed test ran, so nothing shows the code does work";
}

TEST(ResultsJson, HoldsScoreMaxScoreAndEveryTest) {
  const std::vector<grader::TestRecord> records = {
      grader::make_record("A.Passes", "passed", {1, 0}, "", {{"time_ms", 1.5}}, {}),
      grader::make_record("A.Fails", "failed", {2, 1}, "bin 3: expected 1, got 0", {}, {})};
  const std::string json = grader::results_json("lab01", "starter", 7, {"cuda", "GPU"}, records);
  EXPECT_NE(json.find("\"schema\":\"gpu-histogram-workbook/results/v1\""), std::string::npos);
  EXPECT_NE(json.find("\"score\":1,\"max_score\":4"), std::string::npos) << json;
  EXPECT_NE(json.find("\"metrics\":{\"time_ms\":1.5}"), std::string::npos) << json;
  EXPECT_NE(json.find("bin 3: expected 1, got 0"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\":\"main\""), std::string::npos) << json;
}

TEST(ResultsJson, NamesTheHeadlineKernelTheLabDeclares) {
  grader::declare_headline("A.IsFast", "v2 grid-stride");
  const std::vector<grader::TestRecord> records = {
      grader::make_record("A.IsFast", "passed", {1, 0, grader::TestKind::kSpeed}, "", {}, {})};
  const std::string json = grader::results_json("lab01", "starter", 7, {"cuda", "GPU"}, records);
  EXPECT_NE(json.find("\"headline\":{\"test\":\"A.IsFast\",\"kernel\":\"v2 grid-stride\"}"),
            std::string::npos) << json;
  EXPECT_NE(json.find("\"kind\":\"speed\""), std::string::npos) << json;
}

}  // namespace
