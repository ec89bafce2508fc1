#include <gtest/gtest.h>

#include "grader/core/guard_damage.hpp"
#include "grader/core/patterns.hpp"

namespace {

std::vector<unsigned char> intact() { return std::vector<unsigned char>(grader::kGuardBytes, grader::kGuardByte); }

TEST(GuardDamage, IsEmptyWhenBothZonesAreIntact) {
  EXPECT_EQ(grader::describe_guard_damage(intact(), intact(), 4, 1024), "");
}

TEST(GuardDamage, NamesTheIndexJustPastTheEnd) {
  auto after = intact();
  after[0] = 0;  // the int right after the last element: index 1024 of a 1024-int array
  EXPECT_EQ(grader::describe_guard_damage(intact(), after, 4, 1024),
            "out-of-bounds write past the end of the array (size 1024): index 1024");
}

TEST(GuardDamage, NamesARangeOfIndicesPastTheEnd) {
  auto after = intact();
  after[4] = 1;
  after[11] = 1;
  EXPECT_EQ(grader::describe_guard_damage(intact(), after, 4, 10),
            "out-of-bounds write past the end of the array (size 10): index 11 to 12");
}

TEST(GuardDamage, NamesNegativeIndicesBeforeTheStart) {
  auto before = intact();
  before[grader::kGuardBytes - 1] = 0;  // element -1
  EXPECT_EQ(grader::describe_guard_damage(before, intact(), 4, 8),
            "out-of-bounds write before the start of the array: index -1");
}

}  // namespace
