// The benchmark's harness: its options, the yardsticks of one input, and Bench, which checks a
// kernel's output once against the CPU and then times it (grader/core/timing.cuh), one row each.
// The groups of kernels (bench_*.cu) fill it; benchmark.cu runs them and writes the report.
#pragma once
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "grader/bench/bench_inputs.hpp"
#include "grader/bench/bench_report.hpp"
#include "grader/core/compare.hpp"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/launch_text.hpp"
#include "grader/core/timing.cuh"
#include "grader/core/yardsticks.cuh"

namespace bench {

constexpr std::size_t kIntSamples = std::size_t{1} << 25;   // 128 MiB of int32
constexpr std::size_t kByteSamples = std::size_t{1} << 27;  // 128 MiB of bytes
constexpr int kImageWidth = 16384;                          // 16384 x 8192 = 2^27 pixels
constexpr unsigned int kSaturationCap = 127;

struct Options {
  std::string out_dir;
  int runs = 20;
  std::string only;
};

// The yardsticks of one input, measured before its kernels; 0 = not relevant to this input.
struct Yardsticks {
  double read_ms = 0, copy_ms = 0, baseline_ms = 0, cub_ms = 0;
};

class Bench {
 public:
  explicit Bench(const Options& options) : timing_{3, options.runs, true} {}

  // Checks `run`'s output once against `expected`, then times it; returns the row it added.
  template <class T>
  Row& measure(const std::string& group, const std::string& kernel, const std::string& launch,
               const std::string& distribution, double bytes, const std::vector<T>& expected,
               grader::DeviceBuffer<T>& d_out, const std::function<void()>& run,
               const Yardsticks& y, bool is_yardstick = false) {
    Row row;
    row.group = group, row.kernel = kernel, row.launch = launch, row.distribution = distribution;
    row.bytes = bytes;
    row.is_yardstick = is_yardstick;
    d_out.fill_poison();
    run();
    grader::check_kernel_ran(kernel, launch);
    row.correct = grader::compare_exact(expected, d_out.download(),
                                        static_cast<T>(grader::kPoisonWord)).matches();
    if (row.correct) {
      row.time = grader::time_gpu_ms(run, timing_);
      fill_ratios(row, y);
    }
    print(row);
    return rows_.back();
  }

  // A yardstick the grader measured itself (read, copy): no output to check.
  void yardstick(const std::string& group, const std::string& kernel, const std::string& distribution,
                 const grader::Measurement& m, const Yardsticks& y) {
    Row row;
    row.group = group, row.kernel = kernel, row.distribution = distribution;
    row.bytes = m.bytes;
    row.time = m.time_ms;
    row.is_yardstick = true;
    fill_ratios(row, y);
    print(row);
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  void print(const Row& row) {
    if (rows_.empty() || rows_.back().group != row.group) {
      std::printf("%s\n", group_heading(row.group).c_str());
    }
    rows_.push_back(row);
    std::printf("%s\n", format_row(row).c_str());
    std::fflush(stdout);
  }

  static void fill_ratios(Row& row, const Yardsticks& y) {
    const double t = row.time.median;
    if (t <= 0) return;
    if (y.read_ms > 0) row.read_percent = 100 * y.read_ms / t;
    if (y.copy_ms > 0) row.copy_percent = 100 * y.copy_ms / t;
    if (y.baseline_ms > 0) row.vs_baseline = y.baseline_ms / t;
    if (y.cub_ms > 0) row.vs_cub = y.cub_ms / t;
  }

  grader::TimingOptions timing_;
  std::vector<Row> rows_;
};

inline int sm_count() { return grader::device_status().properties.multiProcessorCount; }

// The groups, each on one input distribution where it takes one (bench_int_histograms.cu,
// bench_byte_histograms.cu, bench_scans.cu).
void bench_1024_bins(Bench& b, Distribution dist);
void bench_4096_bins(Bench& b, Distribution dist);
void bench_bytes(Bench& b, Distribution dist);
void bench_scans(Bench& b);

}  // namespace bench
