// The grader's main(): reads the grader's own options, reports each test's result to the harness
// over the results channel, and returns 77 (meson's
// SKIP) when every test was skipped, so a machine without a GPU shows SKIP, never a false PASS.
#include <gtest/gtest.h>
#include <sys/prctl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <cstdio>
#include <cstring>

#include "grader/core/device.cuh"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/student_code.hpp"
#include "grader/core/stop_count.hpp"
#include "grader/core/watchdog.hpp"

namespace {

constexpr int kExitAllSkipped = 77;

bool every_test_skipped(const ::testing::UnitTest& unit) {
  return unit.test_to_run_count() > 0 && unit.skipped_test_count() == unit.test_to_run_count();
}

// --grader-list-points: each test's points, "NAME PASS STRETCH KIND NEEDS" a line (KIND: main,
// edge or speed; NEEDS: the tests, comma-separated, that an edge test's points wait for, or -),
// then "#headline TEST KERNEL..." where the lab declares its headline kernel; for grade.py's table
// (a test that crashes still counts in the maximum). Runs nothing.
int list_points(const ::testing::UnitTest& unit) {
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const std::string name = std::string(suite.name()) + "." + suite.GetTestInfo(t)->name();
      const grader::TestPoints points = grader::points_for(name);
      std::string needs;
      for (const std::string& needed : grader::tests_needed_by(name)) {
        needs += (needs.empty() ? "" : ",") + needed;
      }
      std::printf("%s %g %g %s %s\n", name.c_str(), points.pass, points.stretch,
                  grader::kind_name(points.kind), needs.empty() ? "-" : needs.c_str());
    }
  }
  if (!grader::headline().test.empty()) {
    std::printf("#headline %s %s\n", grader::headline().test.c_str(), grader::headline().kernel.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // The runner (the student's code) runs as this user outside the batch's sandbox: it must not be
  // able to read this process's memory (the seed, the expected values) through /proc or ptrace.
  prctl(PR_SET_DUMPABLE, 0);
  // It can still stop this process (SIGSTOP cannot be refused) while a yardstick is timed, which
  // would flatter every ratio: a timed round during which this process was continued is void.
  grader::count_continues();
#ifdef __GLIBC__
  // The tests make and drop host copies of 128 MiB buffers by the hundred. From the heap, and kept
  // there, their pages are faulted in once; as fresh mmaps they would be, and zeroed, every time.
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--grader-list-points") == 0) {
      return list_points(*::testing::UnitTest::GetInstance());
    }
  }
  try {
    grader::read_checker_options(argc, argv);
  } catch (const grader::UsageError& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 2;
  }
  const grader::DeviceStatus& device = grader::device_status();
  const grader::RunContext context{grader::kCpuBackend ? "cpu" : "cuda",
                                   device.available ? device.description : device.reason};
  if (grader::run_options().seed_hidden) {
    std::printf("[ grader   ] backend %s, device: %s, seed hidden\n", context.backend.c_str(),
                context.device.c_str());
  } else {
    std::printf("[ grader   ] backend %s, device: %s, seed %llu\n", context.backend.c_str(),
                context.device.c_str(), static_cast<unsigned long long>(grader::run_options().seed));
  }
  ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  unit.listeners().Append(grader::new_results_listener(context));
  unit.listeners().Append(grader::new_watchdog_listener());
  const int failed = RUN_ALL_TESTS();
  if (!grader::run_options().runner_path.empty() && grader::student_runner().running()) {
    grader::student_runner().stop();
    if (!grader::student_runner().failed_exit().empty()) {
      // Under a sanitizer (meson test --setup racecheck): it reports some errors only at exit.
      std::printf("[ grader   ] the runner %s at its end: see its messages above\n",
                  grader::student_runner().failed_exit().c_str());
      return 1;
    }
  }
  if (failed == 0 && every_test_skipped(unit)) return kExitAllSkipped;
  return failed;
}
