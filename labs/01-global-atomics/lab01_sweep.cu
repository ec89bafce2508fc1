// Handout question 2.4: time the graded histogram kernels over many launch shapes on this GPU and
// print the table (grid, block, slice, operations, time), every shape checked for correctness;
// --csv=FILE also writes it as CSV for grader/bench/plot_sweeps.py.
//   meson compile -C build lab01-sweep      or      build/labs/lab01_sweep --data=FILE [--csv=FILE]
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/run_options.hpp"
#include "grader/core/samples_file.hpp"
#include "grader/core/standard_data.hpp"
#include "grader/core/sweep_csv.hpp"
#include "grader/core/sweep_main.cuh"
#include "grader/core/timing.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab01_global_atomics.cuh"

namespace {

struct Row {
  const char* version;
  long long grid, block, slice;
  lab01::SliceLaunch slices;
  lab01::GridStrideLaunch grid_stride;
};

std::vector<Row> shapes(int n, int sm_count) {
  std::vector<Row> rows;
  // The handout's table first: 64 blocks whatever the slice, then a wider spread.
  const int table[][2] = {{1024, 512}, {512, 1024}, {256, 2048}, {128, 1}, {256, 1}, {1024, 1},
                          {256, 4},    {256, 16},   {256, 64},   {256, 256}, {1024, 32}};
  for (const auto& shape : table) {
    const long long per_block = 1LL * shape[0] * shape[1];
    rows.push_back({"v1 slices", (n + per_block - 1) / per_block, shape[0], shape[1],
                    {shape[0], shape[1]}, {}});
  }
  for (int blocks_per_sm : {1, 2, 4, 8, 16, 32}) {
    const int blocks = blocks_per_sm * sm_count;
    const long long threads = 1LL * blocks * 256;
    rows.push_back({"v2 grid-stride", blocks, 256, (n + threads - 1) / threads, {}, {blocks, 256}});
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  grader::SweepCsv csv(argc, argv);
  return grader::run_sweep(argc, argv, [&](const grader::DeviceStatus& device) {
    const std::vector<int>& samples = grader::standard_samples(lab01::kNumBins);
    const int n = static_cast<int>(samples.size());
    const std::vector<int> expected = grader::cpu_histogram(samples, lab01::kNumBins);
    grader::DeviceBuffer<int> d_samples(samples);
    grader::DeviceBuffer<int> d_bins(lab01::kNumBins);
    const grader::Measurement read = grader::measure_read_bandwidth(d_samples.data(), samples.size());
    std::printf("Lab 01 sweep on %s, %d samples\n", device.description.c_str(), n);
    std::printf("streaming read of the input: %.4f ms\n", read.time_ms.median);
    std::printf("%-15s %8s %6s %6s %12s %10s %9s  %s\n", "version", "grid", "block", "slice",
                "operations", "time (ms)", "GB/s", "result");
    csv.begin("01", "Lab 01 sweep", device.description);
    csv.plot("slice", "samples per thread (slice)", "time_ms", "time (ms)", "{version}, {block} threads/block");
    csv.reference("streaming read of the input", read.time_ms.median);
    csv.row({"version", "grid", "block", "slice", "operations", "time_ms", "gbps", "result"});
    for (const Row& row : shapes(n, device.properties.multiProcessorCount)) {
      auto run = [&] {
        if (row.slices.threads_per_block) {
          lab01::histogram_v1_slices(d_samples.data(), n, d_bins.data(), row.slices);
        } else {
          lab01::histogram_v2_grid_stride(d_samples.data(), n, d_bins.data(), row.grid_stride);
        }
      };
      run();
      grader::check_kernel_ran(row.version, "sweep");
      const auto comparison =
          grader::compare_exact(expected, d_bins.download(), static_cast<int>(grader::kPoisonWord));
      const grader::Summary time = grader::time_gpu_ms(run, {2, 10, true});
      const double gbps = n * 4.0 / (time.median * 1e6);
      const char* result = comparison.matches() ? "correct" : "WRONG";
      std::printf("%-15s %8lld %6lld %6lld %12lld %10.3f %9.1f  %s\n", row.version, row.grid,
                  row.block, row.slice, row.grid * row.block * row.slice, time.median, gbps, result);
      csv.row({row.version, csv.number(row.grid), csv.number(row.block), csv.number(row.slice),
               csv.number(row.grid * row.block * row.slice), csv.number(time.median, 4),
               csv.number(gbps, 1), result});
    }
  });
}
