// grader/core/gpu_state.hpp: which clock reasons make a time unfair, how other processes on the
// GPU are told from this program's, and that a GPU NVML cannot read is said, never a crash.
#include "grader/core/gpu_state.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace {

TEST(GpuState, ThermalHardwareAndPowerBrakeSlowdownsAreThrottling) {
  grader::GpuState s;
  for (unsigned long long bit : {0x8ull, 0x20ull, 0x40ull, 0x80ull}) {
    s.throttle_reasons = bit | 0x1;
    EXPECT_TRUE(s.throttled()) << bit;
  }
  s.throttle_reasons = 0x40 | 0x4;
  EXPECT_EQ(s.throttle_text(), "software power cap, hardware thermal slowdown");
}

TEST(GpuState, IdleApplicationClocksAndThePowerCapAreNot) {
  grader::GpuState s;
  s.throttle_reasons = 0x1 | 0x2 | 0x4 | 0x10 | 0x100;
  EXPECT_FALSE(s.throttled());
  s.throttle_reasons = 0;
  EXPECT_FALSE(s.throttled());
  EXPECT_EQ(s.throttle_text(), "");
}

TEST(GpuState, OtherProcessesByIdWhenTheDriverListsThisOne) {
  std::string note = "stale";
  EXPECT_EQ(grader::count_other_processes({10, 11, 12, 99}, {10, 11, 12, 13}, 10, 3, note), 1);
  EXPECT_EQ(note, "");
  EXPECT_EQ(grader::count_other_processes({10, 11}, {10, 11, 12}, 10, 3, note), 0);
  // a runner whose ID the process tree did not show is one of this program's, not another's
  EXPECT_EQ(grader::count_other_processes({10, 500}, {10}, 10, 2, note), 0);
  EXPECT_EQ(grader::count_other_processes({10, 500, 501}, {10}, 10, 2, note), 1);
}

TEST(GpuState, OtherProcessesEstimatedWhenTheIdsAreAnotherNamespaces) {
  std::string note;
  EXPECT_EQ(grader::count_other_processes({500, 501, 502, 503}, {10, 11}, 10, 3, note), 1);
  EXPECT_NE(note.find("estimated"), std::string::npos);
  EXPECT_EQ(grader::count_other_processes({500}, {10}, 10, 3, note), 0);
}

TEST(GpuState, ThisProcessIsInItsOwnTree) {
  EXPECT_EQ(grader::own_process_tree().count(static_cast<unsigned>(getpid())), 1u);
}

TEST(GpuState, AGpuNvmlCannotReadIsSaidNotThrown) {
  const grader::GpuStateReader reader("0000:FF:1F.7");  // no such GPU, with or without NVML
  const grader::GpuState s = reader.read();
  EXPECT_NE(s.unknown_because, "");
  EXPECT_EQ(s.other_processes, -1);
}

}  // namespace
