// Handout questions 2.4, 5.2, 6 and 8: time every privatized kernel of the graded submission on
// this GPU over several launch shapes, on uniform and on all-equal inputs, next to the grader's
// global-atomics baseline and the streaming-read yardstick; every result is checked. --csv=FILE
// also writes the table as CSV for grader/bench/plot_sweeps.py.
//   meson compile -C build lab03-sweep      or      build/labs/lab03_sweep --data=FILE [--csv=FILE]
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "grader/core/byte_inputs.hpp"
#include "grader/core/compare.hpp"
#include "grader/core/cpu_histograms.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/launch_text.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/standard_data.hpp"
#include "grader/core/sweep_csv.hpp"
#include "grader/core/sweep_main.cuh"
#include "grader/core/timing.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab03_shared_privatization.cuh"

namespace {

constexpr grader::TimingOptions kTiming{2, 10, true};

// What every row needs beside its kernel: the SM count and the CSV file.
struct Sweep {
  int sm_count;
  grader::SweepCsv& csv;
};

// A launch as printed, and as the CSV's numbers (samples_per_thread 0: the grid strides).
struct Shape {
  std::string text;
  long long blocks;
  int threads;
  int samples_per_thread;
};
Shape shape_of(const lab03::SliceLaunch& l, int n) {
  const long long per_block = 1LL * l.threads_per_block * l.samples_per_thread;
  return {grader::describe(l), (n + per_block - 1) / per_block, l.threads_per_block, l.samples_per_thread};
}
Shape shape_of(const lab03::GridStrideLaunch& l) {
  return {grader::describe(l), l.blocks, l.threads_per_block, 0};
}

// One row: run the kernel, check its bins, time it; the CSV's panel is the histogram it makes.
template <class Bin>
void row(const Sweep& sweep, const std::string& kernel, const std::string& histogram, const Shape& shape,
         const std::string& data, double bytes, const std::vector<Bin>& expected,
         grader::DeviceBuffer<Bin>& d_bins, const std::function<void()>& run, double baseline_ms) {
  run();
  grader::check_kernel_ran(kernel, shape.text);
  const bool correct =
      grader::compare_exact(expected, d_bins.download(), static_cast<Bin>(grader::kPoisonWord)).matches();
  const grader::Summary time = grader::time_gpu_ms(run, kTiming);
  char versus[32] = "";
  if (baseline_ms > 0) std::snprintf(versus, sizeof versus, "%.1fx", baseline_ms / time.median);
  const double gbps = bytes / (time.median * 1e6);
  std::printf("%-34s %-26s %-11s %9.4f %8.0f %9s  %s\n", kernel.c_str(), shape.text.c_str(),
              data.c_str(), time.median, gbps, versus, correct ? "correct" : "WRONG");
  grader::SweepCsv& csv = sweep.csv;
  csv.row({kernel, histogram, csv.number(shape.threads), csv.number(shape.blocks),
           csv.number(double(shape.blocks) / sweep.sm_count, 3),
           shape.samples_per_thread ? csv.number(shape.samples_per_thread) : "", data,
           csv.number(time.median, 4), csv.number(gbps, 0),
           baseline_ms > 0 ? csv.number(baseline_ms / time.median, 2) : "", correct ? "correct" : "WRONG"});
}

void sweep_1024_bins(bool all_equal, const Sweep& sweep) {
  const int sm_count = sweep.sm_count;
  const std::vector<int> samples = all_equal
      ? grader::constant_samples(grader::standard_samples(lab03::kNumBins).size(), 7)
      : grader::standard_samples(lab03::kNumBins);
  const std::string data = all_equal ? "all equal" : "uniform";
  const int n = static_cast<int>(samples.size());
  const std::vector<int> expected = grader::cpu_histogram(samples, lab03::kNumBins);
  grader::DeviceBuffer<int> d_samples(samples);
  grader::DeviceBuffer<int> d_bins(lab03::kNumBins);
  const double bytes = 4.0 * n;
  const grader::Measurement read = grader::measure_read_bandwidth(d_samples.data(), samples.size());
  const grader::Measurement baseline =
      grader::measure_baseline_histogram(d_samples.data(), n, lab03::kNumBins);
  std::printf("%-34s %-26s %-11s %9.4f %8.0f %9s\n", "grader: streaming read", "", data.c_str(),
              read.time_ms.median, read.gbps(), "");
  sweep.csv.reference("streaming read, " + data, read.gbps());
  std::printf("%-34s %-26s %-11s %9.4f %8.0f %9s\n", "grader: global-atomics baseline", "", data.c_str(),
              baseline.time_ms.median, baseline.gbps(), "1.0x");
  sweep.csv.meta("note", "grader's global-atomics baseline, " + data + ": " +
                             grader::SweepCsv::number(baseline.time_ms.median, 4) + " ms");
  const std::vector<lab03::SliceLaunch> slice_shapes = {{256, 16}, {256, 32}, {256, 64}, {256, 128},
                                                        {1024, 32}, {128, 64}, lab03::fastest_slice_launch()};
  for (const lab03::SliceLaunch& launch : slice_shapes) {
    row(sweep, "v1 shared slices", "1024 bins", shape_of(launch, n), data, bytes, expected, d_bins,
        [&] { lab03::histogram_v1_shared_slices(d_samples.data(), n, d_bins.data(), launch); },
        baseline.time_ms.median);
  }
  // The French course document's six launch shapes of its shared-memory kernel (question 2.4),
  // read as its first table reads them, grid | block | slice: 2048 blocks of 32 threads x 512
  // samples, 2048 of 64 x 256, 2048 of 128 x 128, 4096 of 32 x 256, 4096 of 64 x 128 and 8192 of
  // 64 x 64, for its 2^25 samples. {threads per block, samples per thread}; the grid follows.
  const std::vector<lab03::SliceLaunch> course_shapes = {{32, 512}, {64, 256}, {128, 128},
                                                         {32, 256}, {64, 128}, {64, 64}};
  for (const lab03::SliceLaunch& launch : course_shapes) {
    row(sweep, "v1, the course's shapes", "1024 bins", shape_of(launch, n), data, bytes, expected, d_bins,
        [&] { lab03::histogram_v1_shared_slices(d_samples.data(), n, d_bins.data(), launch); },
        baseline.time_ms.median);
  }
  for (int per_sm : {1, 2, 4, 8, 16}) {
    for (int threads : {256, 512, 1024}) {
      if (per_sm * threads > 2048) continue;
      const lab03::GridStrideLaunch launch{per_sm * sm_count, threads};
      row(sweep, "v2 shared grid-stride", "1024 bins", shape_of(launch), data, bytes, expected, d_bins,
          [&] { lab03::histogram_v2_shared_grid_stride(d_samples.data(), n, d_bins.data(), launch); },
          baseline.time_ms.median);
    }
  }
}

void sweep_bytes_and_letters(bool all_equal, const Sweep& sweep) {
  const int sm_count = sweep.sm_count;
  const std::size_t count = grader::standard_samples(lab03::kNumBins).size() * 4;  // same 128 MiB
  const std::vector<unsigned char> bytes = all_equal ? std::vector<unsigned char>(count, 'e')
                                                     : grader::random_bytes(count, 1);
  const std::vector<unsigned char> text = all_equal ? bytes : grader::generated_text(count, 2);
  const std::string data = all_equal ? "all 'e'" : "random";
  const int n = static_cast<int>(count);
  grader::DeviceBuffer<unsigned char> d_bytes(bytes);
  grader::DeviceBuffer<unsigned int> d_byte_bins(lab03::kByteBins);
  for (int per_sm : {2, 4, 8}) {
    const Shape shape{std::to_string(per_sm * sm_count) + " blocks of 256", per_sm * sm_count,
                      lab03::kByteBins, 0};
    row(sweep, "v3 bytes", "256 bins (bytes)", shape, data, count,
        grader::cpu_byte_histogram(bytes), d_byte_bins,
        [&] { lab03::histogram_v3_bytes(d_bytes.data(), n, d_byte_bins.data(), per_sm * sm_count); }, 0);
  }
  grader::DeviceBuffer<unsigned char> d_text(text);
  grader::DeviceBuffer<unsigned int> d_letter_bins(lab03::kLetterBins);
  for (int per_sm : {2, 4, 8}) {
    const lab03::GridStrideLaunch launch{per_sm * sm_count, 256};
    row(sweep, "v5 letters", "7 bins (letters)", shape_of(launch), all_equal ? data : "text", count,
        grader::cpu_letter_histogram(text, lab03::kLettersPerBin), d_letter_bins,
        [&] { lab03::histogram_v5_letters(d_text.data(), n, d_letter_bins.data(), launch); }, 0);
  }
}

void sweep_wide(bool all_equal, const Sweep& sweep) {
  const int sm_count = sweep.sm_count;
  const std::size_t count = grader::standard_samples(lab03::kNumBins).size();
  const std::vector<int> ints = all_equal ? grader::constant_samples(count, 4095)
                                          : grader::uniform_samples(count, lab03::kWideBins, 3);
  const std::vector<unsigned int> values(ints.begin(), ints.end());
  const std::string data = all_equal ? "all equal" : "uniform";
  const int n = static_cast<int>(count);
  grader::DeviceBuffer<unsigned int> d_values(values);
  grader::DeviceBuffer<unsigned int> d_bins(lab03::kWideBins);
  const double baseline_ms = grader::measure_baseline_histogram(
      reinterpret_cast<const int*>(d_values.data()), n, lab03::kWideBins).time_ms.median;
  std::printf("%-34s %-26s %-11s %9.4f\n", "grader: baseline, 4096 bins", "", data.c_str(), baseline_ms);
  sweep.csv.meta("note", "grader's baseline, 4096 bins, " + data + ": " +
                             grader::SweepCsv::number(baseline_ms, 4) + " ms");
  for (int threads : {256, 1024}) {
    for (int per_sm : {1, 2, 4, 8}) {
      if (per_sm * threads > 2048 || per_sm * threads < 512) continue;
      const lab03::GridStrideLaunch launch{per_sm * sm_count, threads};
      row(sweep, "v4 wide (4096 bins)", "4096 bins", shape_of(launch), data, 4.0 * n,
          grader::cpu_value_histogram(values, lab03::kWideBins), d_bins,
          [&] { lab03::histogram_v4_wide(d_values.data(), n, d_bins.data(), launch); }, baseline_ms);
    }
  }
  const std::vector<unsigned int> capped =
      grader::cpu_saturate(grader::cpu_value_histogram(values, lab03::kWideBins), 127);
  const lab03::GridStrideLaunch launch = lab03::fastest_grid_stride_launch(sm_count);
  row(sweep, "v4 wide, then saturate_v4 cap 127", "4096 bins", shape_of(launch), data, 4.0 * n, capped,
      d_bins,
      [&] {
        lab03::histogram_v4_wide(d_values.data(), n, d_bins.data(), launch);
        lab03::saturate_v4(d_bins.data(), lab03::kWideBins, 127);
      }, baseline_ms);
}

}  // namespace

int main(int argc, char** argv) {
  grader::SweepCsv csv(argc, argv);
  return grader::run_sweep(argc, argv, [&](const grader::DeviceStatus& device) {
    const Sweep sweep{device.properties.multiProcessorCount, csv};
    std::printf("Lab 03 sweep on %s; inputs of 128 MiB; times are medians of 10 runs, L2 flushed\n",
                device.description.c_str());
    std::printf("%-34s %-26s %-11s %9s %8s %9s  %s\n", "kernel", "launch", "data", "time (ms)", "GB/s",
                "vs base", "result");
    csv.begin("03", "Lab 03 sweep", device.description);
    csv.plot("blocks_per_sm", "blocks per SM", "gbps", "GB/s (input bytes / time)",
             "{kernel}, {threads} threads");
    csv.meta("xscale", "log");
    csv.meta("style", "data");
    csv.meta("panel", "histogram");
    csv.row({"kernel", "histogram", "threads", "blocks", "blocks_per_sm", "samples_per_thread", "data",
             "time_ms", "gbps", "vs_base", "result"});
    for (bool all_equal : {false, true}) {
      sweep_1024_bins(all_equal, sweep);
      sweep_wide(all_equal, sweep);
      sweep_bytes_and_letters(all_equal, sweep);
    }
  });
}
