// The benchmark's rows, its targets and its outputs: the table printed, the same rows as JSON and
// CSV. Host code only: the GPU work lives in benchmark.cu.
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "grader/core/statistics.hpp"

namespace bench {

constexpr double kNotRelevant = std::numeric_limits<double>::quiet_NaN();

struct Row {
  std::string group;         // "1024-bin histogram", "scan (int32)", ...
  std::string kernel;        // "lab03 v2 shared grid-stride", "CUB HistogramEven", ...
  std::string launch;        // the launch shape the reference is timed with
  std::string distribution;  // of the input
  bool correct = true;       // checked once against the CPU before timing; false: not timed
  bool is_yardstick = false; // the grader's or CUB's, not a reference
  grader::Summary time;      // ms
  double bytes = 0;          // bytes the work must move at least (read, or read + write)
  // Bytes the reference's design moves where that is more than `bytes` (equalization: the image
  // read twice, less what the kernel keeps on chip between its passes, and written once).
  double traffic_bytes = kNotRelevant;
  double read_percent = kNotRelevant;  // streaming-read time / this time
  double copy_percent = kNotRelevant;  // device-copy time / this time
  double vs_baseline = kNotRelevant;   // the group's baseline time / this time
  double vs_cub = kNotRelevant;        // CUB's time / this time
  unsigned sm_mhz = 0;                 // the SM clock right after the row was timed (0: unknown)
  double gbps() const { return time.median > 0 ? bytes / (time.median * 1e6) : 0; }
};

struct Header {
  std::string gpu;      // "NVIDIA H200 (sm_90, 132 SMs)"
  std::string driver;   // "570.124.06 (supports CUDA 12.8)"
  std::string runtime;  // "13.0"
  std::string cub;      // "3.0.1 (CCCL 3.0.1)": the CUB the program was compiled with
  std::string date;     // "2026-11-22 01:50 UTC"
  int runs = 20;
  unsigned sm_max_mhz = 0, power_limit_w = 0;  // 0: unknown, and why:
  std::string clocks_unknown_because;
  std::string text() const;
};

// A goal of the benchmark's references, checked on the rows of one run.
struct Target {
  std::string name;      // "1024-bin histogram, fastest reference: % of read bandwidth (uniform)"
  std::string kernel;    // the row(s) it was read from
  double goal = 0;
  double measured = kNotRelevant;
  bool met() const { return measured == measured && measured >= goal; }
};

std::string table_heading();
std::string group_heading(const std::string& group);
std::string format_row(const Row& row);
std::string format_table(const Header& header, const std::vector<Row>& rows,
                         const std::vector<Target>& targets);
std::vector<Target> evaluate_targets(const std::vector<Row>& rows);
std::string format_targets(const std::vector<Target>& targets);
// "SM clock right after the timed rows: 1755 to 1980 MHz" (or that it is unknown).
std::string clock_range(const std::vector<Row>& rows);
// DIR/benchmark.txt (the table), DIR/benchmark.json and DIR/benchmark.csv; creates DIR.
void write_files(const std::string& dir, const Header& header, const std::vector<Row>& rows,
                 const std::vector<Target>& targets, const std::string& table);

}  // namespace bench
