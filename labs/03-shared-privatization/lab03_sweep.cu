// Handout questions 2.4, 2.6, 5.2 and 6: time every privatized kernel of the graded submission on
// this GPU over several launch shapes, on uniform and on all-equal inputs, next to the grader's
// global-atomics baseline and the streaming-read yardstick; every result is checked.
//   meson compile -C build lab03-sweep      or      build/labs/lab03_sweep --data=FILE
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "grader/core/byte_inputs.hpp"
#include "grader/core/compare.hpp"
#include "grader/core/cpu_histograms.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/sweep_main.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/run_options.hpp"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/standard_data.hpp"
#include "grader/core/timing.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab03_shared_privatization.cuh"

namespace {

constexpr grader::TimingOptions kTiming{2, 10, true};

// One row: run the kernel, check its bins, time it.
template <class Bin>
void row(const std::string& kernel, const std::string& shape, const std::string& data, double bytes,
         const std::vector<Bin>& expected, grader::DeviceBuffer<Bin>& d_bins,
         const std::function<void()>& run, double baseline_ms) {
  run();
  grader::check_kernel_ran(kernel, shape);
  const bool correct =
      grader::compare_exact(expected, d_bins.download(), static_cast<Bin>(grader::kPoisonWord)).matches();
  const grader::Summary time = grader::time_gpu_ms(run, kTiming);
  char versus[32] = "";
  if (baseline_ms > 0) std::snprintf(versus, sizeof versus, "%.1fx", baseline_ms / time.median);
  std::printf("%-34s %-26s %-11s %9.4f %8.0f %9s  %s\n", kernel.c_str(), shape.c_str(), data.c_str(),
              time.median, bytes / (time.median * 1e6), versus, correct ? "correct" : "WRONG");
}

void sweep_1024_bins(bool all_equal, int sm_count) {
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
  std::printf("%-34s %-26s %-11s %9.4f %8.0f %9s\n", "grader: global-atomics baseline", "", data.c_str(),
              baseline.time_ms.median, baseline.gbps(), "1.0x");
  const std::vector<lab03::SliceLaunch> slice_shapes = {{256, 16}, {256, 32}, {256, 64}, {256, 128},
                                                        {1024, 32}, {128, 64}, lab03::fastest_slice_launch()};
  for (const lab03::SliceLaunch& launch : slice_shapes) {
    row("v1 shared slices", lab03::describe(launch), data, bytes, expected, d_bins,
        [&] { lab03::histogram_v1_shared_slices(d_samples.data(), n, d_bins.data(), launch); },
        baseline.time_ms.median);
  }
  for (int per_sm : {1, 2, 4, 8, 16}) {
    for (int threads : {256, 512, 1024}) {
      if (per_sm * threads > 2048) continue;
      const lab03::GridStrideLaunch launch{per_sm * sm_count, threads};
      row("v2 shared grid-stride", lab03::describe(launch), data, bytes, expected, d_bins,
          [&] { lab03::histogram_v2_shared_grid_stride(d_samples.data(), n, d_bins.data(), launch); },
          baseline.time_ms.median);
    }
  }
}

void sweep_bytes_and_letters(bool all_equal, int sm_count) {
  const std::size_t count = grader::standard_samples(lab03::kNumBins).size() * 4;  // same 128 MiB
  const std::vector<unsigned char> bytes = all_equal ? std::vector<unsigned char>(count, 'e')
                                                     : grader::random_bytes(count, 1);
  const std::vector<unsigned char> text = all_equal ? bytes : grader::generated_text(count, 2);
  const std::string data = all_equal ? "all 'e'" : "random";
  const int n = static_cast<int>(count);
  grader::DeviceBuffer<unsigned char> d_bytes(bytes);
  grader::DeviceBuffer<unsigned int> d_byte_bins(lab03::kByteBins);
  for (int per_sm : {2, 4, 8}) {
    row("v3 bytes", std::to_string(per_sm * sm_count) + " blocks of 256", data, count,
        grader::cpu_byte_histogram(bytes), d_byte_bins,
        [&] { lab03::histogram_v3_bytes(d_bytes.data(), n, d_byte_bins.data(), per_sm * sm_count); }, 0);
  }
  grader::DeviceBuffer<unsigned char> d_text(text);
  grader::DeviceBuffer<unsigned int> d_letter_bins(lab03::kLetterBins);
  for (int per_sm : {2, 4, 8}) {
    const lab03::GridStrideLaunch launch{per_sm * sm_count, 256};
    row("v5 letters", lab03::describe(launch), all_equal ? data : "text", count,
        grader::cpu_letter_histogram(text, lab03::kLettersPerBin), d_letter_bins,
        [&] { lab03::histogram_v5_letters(d_text.data(), n, d_letter_bins.data(), launch); }, 0);
  }
}

void sweep_wide(bool all_equal, int sm_count) {
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
  for (int threads : {256, 1024}) {
    for (int per_sm : {1, 2, 4, 8}) {
      if (per_sm * threads > 2048 || per_sm * threads < 512) continue;
      const lab03::GridStrideLaunch launch{per_sm * sm_count, threads};
      row("v4 wide (4096 bins)", lab03::describe(launch), data, 4.0 * n,
          grader::cpu_value_histogram(values, lab03::kWideBins), d_bins,
          [&] { lab03::histogram_v4_wide(d_values.data(), n, d_bins.data(), launch); }, baseline_ms);
    }
  }
  const std::vector<unsigned int> capped =
      grader::cpu_saturate(grader::cpu_value_histogram(values, lab03::kWideBins), 127);
  const lab03::GridStrideLaunch launch = lab03::fastest_grid_stride_launch(sm_count);
  row("v4 wide, then saturate_v4 cap 127", lab03::describe(launch), data, 4.0 * n, capped, d_bins,
      [&] {
        lab03::histogram_v4_wide(d_values.data(), n, d_bins.data(), launch);
        lab03::saturate_v4(d_bins.data(), lab03::kWideBins, 127);
      }, baseline_ms);
}

}  // namespace

int main(int argc, char** argv) {
  return grader::run_sweep(argc, argv, [&](const grader::DeviceStatus& device) {
    const int sm_count = device.properties.multiProcessorCount;
    std::printf("Lab 03 sweep on %s; inputs of 128 MiB; times are medians of 10 runs, L2 flushed\n",
                device.description.c_str());
    std::printf("%-34s %-26s %-11s %9s %8s %9s  %s\n", "kernel", "launch", "data", "time (ms)", "GB/s",
                "vs base", "result");
    for (bool all_equal : {false, true}) {
      sweep_1024_bins(all_equal, sm_count);
      sweep_wide(all_equal, sm_count);
      sweep_bytes_and_letters(all_equal, sm_count);
    }
  });
}
