// The benchmark's harness: its options, the yardsticks of one input, EdgeSuite (the small inputs
// every reference must get right), and Bench, which checks a kernel's output once against the CPU
// and then times it (grader/core/timing.cuh), one row each. The groups of kernels (bench_*.cu)
// fill it; benchmark.cu runs them and writes the report.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <cuda_profiler_api.h>

#include "grader/bench/bench_inputs.hpp"
#include "grader/bench/bench_report.hpp"
#include "grader/core/gpu_state.hpp"
#include "grader/core/compare.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/launch_text.hpp"
#include "grader/core/scan_yardsticks.cuh"
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
  bool profile = false;  // run each kernel once between cudaProfilerStart and Stop, untimed (for ncu)
  bool list = false;     // print the groups the options select, and stop (no GPU needed)
};

// The yardsticks of one input, measured before its kernels; 0 = not relevant to this input.
// `read`, `copy` and `cub`, where set, are those yardsticks' work, timed again in turn with each
// kernel (grader::time_gpu_ms_in_turn): the kernel's ratio to one is the median of the runs' ratios,
// so a drift of the GPU's clocks between the yardstick's measurement and the kernel's cannot move
// it. The baseline's ratio always divides by baseline_ms.
struct Yardsticks {
  double read_ms = 0, copy_ms = 0, baseline_ms = 0, cub_ms = 0;
  std::function<void()> read, copy, cub;
};

// A kernel run on d_in[0..n) into d_out, and the CPU's answer for an input.
template <class In, class Out>
using EdgeRun = std::function<void(const In* d_in, int n, Out* d_out)>;
template <class In, class Out>
using CpuAnswer = std::function<std::vector<Out>(const std::vector<In>&)>;

// The small inputs a reference must get right before it is timed: sizes 0, 1, 3, 4097, 1000003 and
// 10000019 (no multiple of any block, tile or vector width; the last gives every thread of a
// resident grid several trips), each drawn uniformly from [low, high] and all equal to `equal`;
// and, for kernels that take any pointer, the random 4097 and 10000019 started one element past an
// aligned start. Inputs and answers are made and uploaded once, for every kernel of a story.
template <class In, class Out>
class EdgeSuite {
 public:
  EdgeSuite(In low, In high, In equal, const CpuAnswer<In, Out>& cpu) {
    std::mt19937_64 random(2025);
    std::uniform_int_distribution<long long> value(low, high);
    for (int size : {0, 1, 3, 4097, 1000003, 10000019}) {
      std::vector<In> drawn(static_cast<std::size_t>(size));
      for (In& v : drawn) v = static_cast<In>(value(random));
      add("random, n = " + std::to_string(size), drawn, cpu, size == 4097 || size == 10000019);
      add("all " + std::to_string(static_cast<long long>(equal)) + ", n = " + std::to_string(size),
          std::vector<In>(static_cast<std::size_t>(size), equal), cpu, false);
    }
  }

  // "" when `run` gets every case right, else the first case it gets wrong.
  std::string first_failure(const EdgeRun<In, Out>& run, bool any_pointer) const {
    for (const Case& c : cases_) {
      if (c.offset && !any_pointer) continue;
      grader::DeviceBuffer<Out> d_out(c.expected.size());
      run(c.d_in->data() + (c.offset ? 1 : 0), c.n, d_out.data());
      grader::check_kernel_ran("edge case", c.name);
      const Out poison = static_cast<Out>(grader::kPoisonWord);
      if (!grader::compare_exact(c.expected, d_out.download(), poison).matches()) return c.name;
    }
    return "";
  }

 private:
  struct Case {
    std::string name;
    std::shared_ptr<grader::DeviceBuffer<In>> d_in;
    int n;
    bool offset;
    std::vector<Out> expected;
  };
  void add(const std::string& name, const std::vector<In>& input, const CpuAnswer<In, Out>& cpu,
           bool with_offset) {
    auto d_in = std::make_shared<grader::DeviceBuffer<In>>(input);
    const int n = static_cast<int>(input.size());
    cases_.push_back({name, d_in, n, false, cpu(input)});
    if (with_offset) {
      cases_.push_back({name + ", one element past an aligned start", d_in, n - 1, true,
                        cpu(std::vector<In>(input.begin() + 1, input.end()))});
    }
  }
  std::vector<Case> cases_;
};

// The current GPU's PCI address, as NVML takes it.
inline std::string pci_bus_id() {
  int device = 0;
  char id[32] = {};
  if (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetPCIBusId(id, sizeof id, device) != cudaSuccess) return "";
  return id;
}

class Bench {
 public:
  explicit Bench(const Options& options)
      : timing_{3, options.runs, true}, profile_(options.profile), clocks_(pci_bus_id()) {}

  const grader::GpuStateReader& clocks() const { return clocks_; }

  // `check`'s verdict on kernel `kernel` ("" = every edge case right), computed on the first call
  // for that kernel only: the groups run once per input distribution.
  const std::string& edges(const std::string& kernel, const std::function<std::string()>& check) {
    auto known = edge_verdicts_.find(kernel);
    if (known == edge_verdicts_.end()) known = edge_verdicts_.emplace(kernel, check()).first;
    return known->second;
  }

  // Checks `run`'s output once against `expected` (and takes `edge_failure`, the kernel's edge
  // cases' verdict), then times it if both are right; returns the row it added.
  template <class T>
  Row& measure(const std::string& group, const std::string& kernel, const std::string& launch,
               const std::string& distribution, double bytes, const std::vector<T>& expected,
               grader::DeviceBuffer<T>& d_out, const std::function<void()>& run,
               const Yardsticks& y, bool is_yardstick = false, const std::string& edge_failure = "") {
    Row row;
    row.group = group, row.kernel = kernel, row.launch = launch, row.distribution = distribution;
    row.bytes = bytes;
    row.is_yardstick = is_yardstick;
    d_out.fill_poison();
    if (profile_) {
      // profile_references.py pairs this line with the kernels the profiler reports after it.
      std::printf("==BENCH== %s | %s | %s\n", group.c_str(), kernel.c_str(), distribution.c_str());
      std::fflush(stdout);
      cudaProfilerStart();
    }
    run();
    if (profile_) {
      cudaDeviceSynchronize();
      cudaProfilerStop();
    }
    grader::check_kernel_ran(kernel, launch);
    row.correct = edge_failure.empty() &&
                  grader::compare_exact(expected, d_out.download(),
                                        static_cast<T>(grader::kPoisonWord)).matches();
    if (!edge_failure.empty()) {
      std::printf("%s: wrong on the edge case \"%s\"\n", kernel.c_str(), edge_failure.c_str());
    }
    if (row.correct && !profile_) time_in_turn_with_yardsticks(row, run, y);
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

  // The grader's streaming read of d_in[0..count) as a group's yardstick: measured once for its row,
  // then timed in turn with every kernel the returned Yardsticks go to (d_in must outlive them).
  Yardsticks read_yardstick(const std::string& group, const std::string& distribution, const int* d_in,
                            std::size_t count) {
    const grader::Measurement read = grader::measure_read_bandwidth(d_in, count);
    Yardsticks y;
    y.read_ms = read.time_ms.median;
    int* sink = read_sink_.data();
    y.read = [d_in, count, sink] { grader::read_everything_once(d_in, count, sink); };
    yardstick(group, "grader streaming read", distribution, read, y);
    return y;
  }

  // The grader's device copy of d_src[0..count) into d_dst, the same way (both must outlive them).
  Yardsticks copy_yardstick(const std::string& group, const std::string& distribution, const int* d_src,
                            int* d_dst, std::size_t count) {
    const grader::Measurement copy = grader::measure_copy_bandwidth(d_src, d_dst, count);
    Yardsticks y;
    y.copy_ms = copy.time_ms.median;
    y.copy = [d_src, d_dst, count] {
      GRADER_CUDA_CHECK(cudaMemcpyAsync(d_dst, d_src, count * sizeof(int), cudaMemcpyDeviceToDevice));
    };
    yardstick(group, "grader device copy", distribution, copy, y);
    return y;
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

  // Times `run` in turn with the yardsticks `y` carries work for; fills the row's time and ratios.
  void time_in_turn_with_yardsticks(Row& row, const std::function<void()>& run, const Yardsticks& y) {
    struct InTurn {
      const std::function<void()>& work;
      double& ratio;
      double scale;
    };
    const InTurn candidates[] = {{y.read, row.read_percent, 100},
                                 {y.copy, row.copy_percent, 100},
                                 {y.cub, row.vs_cub, 1}};
    std::vector<std::function<void()>> works{run};
    std::vector<const InTurn*> in_turn;
    for (const InTurn& c : candidates) {
      if (!c.work) continue;
      works.push_back(c.work);
      in_turn.push_back(&c);
    }
    const std::vector<std::vector<double>> times = grader::time_gpu_ms_in_turn(works, timing_);
    row.sm_mhz = clocks_.read().sm_mhz;  // still the clock the runs had, not yet an idle one
    row.time = grader::summarize(times[0]);
    fill_ratios(row, y);
    for (std::size_t w = 1; w < works.size(); ++w) {
      std::vector<double> ratios;
      for (std::size_t i = 0; i < times[0].size(); ++i) ratios.push_back(times[w][i] / times[0][i]);
      in_turn[w - 1]->ratio = in_turn[w - 1]->scale * grader::summarize(ratios).median;
    }
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
  bool profile_;
  grader::DeviceBuffer<int> read_sink_{1};  // where every read yardstick would write (it never does)
  grader::GpuStateReader clocks_;
  std::vector<Row> rows_;
  std::map<std::string, std::string> edge_verdicts_;
};

inline int sm_count() { return grader::device_status().properties.multiProcessorCount; }

// The groups, each on one input distribution where it takes one (bench_int_histograms.cu,
// bench_byte_histograms.cu, bench_equalization.cu, bench_scans.cu). The kernels they time are the
// benchmark's own references (grader/bench/references/).
void bench_1024_bins(Bench& b, Distribution dist);
void bench_4096_bins(Bench& b, Distribution dist);
void bench_bytes(Bench& b, Distribution dist);  // the 256-bin and letter groups, then equalization
void bench_equalization(Bench& b, Distribution dist, const std::vector<unsigned char>& bytes,
                        const grader::DeviceBuffer<unsigned char>& d_bytes);
void bench_scans(Bench& b);

}  // namespace bench
