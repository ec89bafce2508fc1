// Handout question 4.1: time v1, v2 and v3 of the graded submission over several
// slice shapes on this GPU, next to the grader's global-atomics baseline; every result is checked.
// --csv=FILE also writes the table as CSV for grader/bench/plot_sweeps.py.
//   meson compile -C build lab02-sweep      or      build/labs/lab02_sweep --data=FILE [--csv=FILE]
#include <cstdio>
#include <string>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/launch_text.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/standard_data.hpp"
#include "grader/core/sweep_csv.hpp"
#include "grader/core/sweep_main.cuh"
#include "grader/core/timing.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab02_unrolling_ilp.cuh"

namespace {

using Launcher = void (*)(const int*, int, int*, lab02::SliceLaunch);
struct Version {
  const char* name;
  Launcher launch;
};
constexpr Version kVersions[] = {{"v1 slices", lab02::histogram_v1_slices},
                                 {"v2 pragma unroll", lab02::histogram_v2_pragma_unroll},
                                 {"v3 manual ILP", lab02::histogram_v3_manual_ilp}};

}  // namespace

int main(int argc, char** argv) {
  grader::SweepCsv csv(argc, argv);
  return grader::run_sweep(argc, argv, [&](const grader::DeviceStatus& device) {
    const std::vector<int>& samples = grader::standard_samples(lab02::kNumBins);
    const int n = static_cast<int>(samples.size());
    const std::vector<int> expected = grader::cpu_histogram(samples, lab02::kNumBins);
    grader::DeviceBuffer<int> d_samples(samples);
    grader::DeviceBuffer<int> d_bins(lab02::kNumBins);
    const grader::Measurement baseline =
        grader::measure_baseline_histogram(d_samples.data(), n, lab02::kNumBins);
    const grader::Measurement read = grader::measure_read_bandwidth(d_samples.data(), samples.size());
    std::printf("Lab 02 sweep on %s, %d samples\n", device.description.c_str(), n);
    std::printf("streaming read of the input: %.4f ms; grader's global-atomics baseline: %.4f ms\n",
                read.time_ms.median, baseline.time_ms.median);
    std::printf("%-17s %6s %6s %8s %10s %12s  %s\n", "version", "block", "slice", "grid",
                "time (ms)", "vs baseline", "result");
    csv.begin("02", "Lab 02 sweep", device.description);
    csv.plot("shape", "launch shape: threads per block x samples per thread", "time_ms", "time (ms)",
             "version");
    csv.reference("grader's global-atomics baseline", baseline.time_ms.median);
    csv.reference("streaming read of the input", read.time_ms.median);
    csv.row({"version", "shape", "block", "slice", "grid", "time_ms", "vs_baseline", "result"});
    const int table[][2] = {{1024, 512}, {512, 1024}, {256, 2048}, {128, 512}, {256, 64}, {256, 16},
                            {256, 7}, {1024, 8}};
    for (const auto& shape : table) {
      const lab02::SliceLaunch launch{shape[0], shape[1]};
      const long long per_block = 1LL * shape[0] * shape[1];
      for (const Version& v : kVersions) {
        auto run = [&] { v.launch(d_samples.data(), n, d_bins.data(), launch); };
        run();
        grader::check_kernel_ran(v.name, grader::describe(launch));
        const auto comparison =
            grader::compare_exact(expected, d_bins.download(), static_cast<int>(grader::kPoisonWord));
        const grader::Summary time = grader::time_gpu_ms(run, {2, 10, true});
        const long long grid = (n + per_block - 1) / per_block;
        const char* result = comparison.matches() ? "correct" : "WRONG";
        std::printf("%-17s %6d %6d %8lld %10.3f %11.2fx  %s\n", v.name, shape[0], shape[1], grid,
                    time.median, baseline.time_ms.median / time.median, result);
        csv.row({v.name, std::to_string(shape[0]) + " x " + std::to_string(shape[1]),
                 csv.number(shape[0]), csv.number(shape[1]), csv.number(grid), csv.number(time.median, 4),
                 csv.number(baseline.time_ms.median / time.median, 3), result});
      }
    }
  });
}
