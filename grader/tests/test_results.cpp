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

}  // namespace
