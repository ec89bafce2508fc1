// The scan and the histograms against CUB across sizes, 2^16 to 2^28 elements (handouts/benchmark.md,
// "Across sizes"): at each size, the benchmark's fastest references (scan v11, the 1024-bin
// histogram v6, the 4096-bin histogram v4, uncapped) and CUB's DeviceScan::InclusiveSum and
// DeviceHistogram::HistogramEven, each result checked against the CPU before it is timed, beside
// a device-to-device copy (the scans) and the grader's streaming read (the histograms). Times:
// CUDA events, L2 flushed before each run, median of --runs runs after 3 warm-up runs.
// It prints two Markdown tables, one row per size, under a line naming the GPU, the driver, the
// CUDA runtime and the CUB/CCCL version the program was compiled with; --out FILE writes them too.
//   meson compile -C build bench-sizes    (writes build/bench-results/sizes.md)
//   build/grader/bench/size_sweep [--out FILE] [--runs N] [--from 16] [--to 28]

#include <cctype>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "grader/bench/cub_wrappers.cuh"
#include "grader/bench/machine.cuh"
#include "grader/bench/references/references.cuh"
#include "grader/core/cpu_histograms.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/sample_inputs.hpp"
#include "grader/core/scan_reference.hpp"
#include "grader/core/scan_yardsticks.cuh"
#include "grader/core/timing.cuh"
#include "grader/core/yardsticks.cuh"

namespace {

namespace ref = bench::reference;

struct Options {
  std::string out;
  int runs = 20;
  int from = 16, to = 28;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (arg == flag && i + 1 < argc) return argv[++i];
      if (arg.rfind(flag + "=", 0) == 0) return arg.substr(flag.size() + 1);
      throw std::runtime_error(flag + " needs a value");
    };
    if (arg.rfind("--out", 0) == 0) {
      o.out = value("--out");
    } else if (arg.rfind("--runs", 0) == 0) {
      o.runs = std::stoi(value("--runs"));
    } else if (arg.rfind("--from", 0) == 0) {
      o.from = std::stoi(value("--from"));
    } else if (arg.rfind("--to", 0) == 0) {
      o.to = std::stoi(value("--to"));
    } else {
      throw std::runtime_error("unknown option " + arg + " (options: --out FILE, --runs N, --from K, --to K)");
    }
  }
  if (o.runs < 20) throw std::runtime_error("--runs: at least 20 timed runs");
  if (o.from < 10 || o.to > 30 || o.from > o.to) throw std::runtime_error("--from/--to: sizes 2^10 to 2^30");
  return o;
}


std::string ms(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", v);
  return text;
}
std::string ratio(double v, const char* unit) {
  char text[32];
  std::snprintf(text, sizeof text, unit[0] == '%' ? "%.1f %%" : "%.2f×", unit[0] == '%' ? 100 * v : v);
  return text;
}

// Runs `work` once, checks what it left against `expected`, then times it.
template <class T>
double checked_ms(const std::string& what, const std::function<void()>& work, grader::DeviceBuffer<T>& d_out,
                  const std::vector<T>& expected, const grader::TimingOptions& timing) {
  work();
  GRADER_CUDA_CHECK(cudaDeviceSynchronize());
  if (d_out.download() != expected) throw std::runtime_error(what + " gave a wrong result");
  return grader::time_gpu_ms(work, timing).median;
}

struct Rows {
  std::vector<std::string> scan, hist1024, hist4096;
};

void measure_size(int log2n, const grader::TimingOptions& timing, int sm_count, Rows& rows) {
  const int n = 1 << log2n;
  const std::string size = "2^" + std::to_string(log2n);
  {  // scans of int32
    const std::vector<int> values = grader::uniform_values(n, -100, 100, 7 + log2n);
    grader::DeviceBuffer<int> d_in(values), d_out(values.size());
    const std::vector<int> expected = grader::cpu_inclusive_scan(values);
    const double copy = grader::time_gpu_ms([&] {
      GRADER_CUDA_CHECK(cudaMemcpyAsync(d_out.data(), d_in.data(), sizeof(int) * n, cudaMemcpyDeviceToDevice));
    }, timing).median;
    bench::CubInclusiveSum cub_scan(d_in.data(), d_out.data(), n);
    const double cub = checked_ms<int>("CUB InclusiveSum, " + size, [&] { cub_scan(); }, d_out, expected, timing);
    const double v11 = checked_ms<int>("scan v11, " + size, [&] { ref::scan_v11_split_tile(d_in.data(), n, d_out.data()); },
                                       d_out, expected, timing);
    rows.scan.push_back("| " + size + " | " + ms(copy) + " | " + ms(cub) + " (" + ratio(copy / cub, "%") + ") | " +
                        ms(v11) + " (" + ratio(copy / v11, "%") + ") | " + ratio(cub / v11, "x") + " |");
  }
  {  // 1024 bins of int samples
    const std::vector<int> samples = grader::uniform_samples(n, ref::kBins1024, 11 + log2n);
    grader::DeviceBuffer<int> d_samples(samples), d_bins(ref::kBins1024);
    const std::vector<int> expected = grader::cpu_histogram(samples, ref::kBins1024);
    const double read = grader::measure_read_bandwidth(d_samples.data(), samples.size()).time_ms.median;
    bench::CubHistogramEven<int, int> cub_hist(d_samples.data(), n, d_bins.data(), ref::kBins1024);
    const double cub = checked_ms<int>("CUB HistogramEven 1024, " + size, [&] { cub_hist(); }, d_bins, expected,
                                       timing);
    const ref::GridLaunch launch = ref::shared_grid_launch(sm_count);
    const double v6 = checked_ms<int>("1024-bin v6, " + size, [&] {
      ref::histogram_1024_v6_shared_grid_stride(d_samples.data(), n, d_bins.data(), launch);
    }, d_bins, expected, timing);
    rows.hist1024.push_back("| " + size + " | " + ms(read) + " | " + ms(cub) + " (" + ratio(read / cub, "%") +
                            ") | " + ms(v6) + " (" + ratio(read / v6, "%") + ") | " + ratio(cub / v6, "x") + " |");
  }
  {  // 4096 bins of unsigned values, uncapped
    const std::vector<int> ints = grader::uniform_samples(n, ref::kBins4096, 13 + log2n);
    const std::vector<unsigned> values(ints.begin(), ints.end());
    grader::DeviceBuffer<unsigned> d_values(values), d_bins(ref::kBins4096), d_accumulator(ref::kBins4096);
    GRADER_CUDA_CHECK(cudaMemset(d_accumulator.data(), 0, sizeof(unsigned) * ref::kBins4096));
    const std::vector<unsigned> expected = grader::cpu_value_histogram(values, ref::kBins4096);
    const double read = grader::measure_read_bandwidth(reinterpret_cast<const int*>(d_values.data()), values.size())
                            .time_ms.median;
    bench::CubHistogramEven<unsigned, unsigned> cub_hist(d_values.data(), n, d_bins.data(), ref::kBins4096);
    const double cub = checked_ms<unsigned>("CUB HistogramEven 4096, " + size, [&] { cub_hist(); }, d_bins,
                                            expected, timing);
    const ref::GridLaunch launch = ref::histogram_4096_v4_launch(sm_count);
    const double v4 = checked_ms<unsigned>("4096-bin v4, " + size, [&] {
      ref::histogram_4096_v4_one_block_an_sm(d_values.data(), n, d_bins.data(), 0xffffffffu, d_accumulator.data(),
                                             launch);
    }, d_bins, expected, timing);
    rows.hist4096.push_back("| " + size + " | " + ms(read) + " | " + ms(cub) + " (" + ratio(read / cub, "%") +
                            ") | " + ms(v4) + " (" + ratio(read / v4, "%") + ") | " + ratio(cub / v4, "x") + " |");
  }
  std::fprintf(stderr, "  %s done\n", size.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse(argc, argv);
    const grader::DeviceStatus& device = grader::device_status();
    if (!device.available) {
      std::fprintf(stderr, "error: %s\n", device.reason.c_str());
      return 2;
    }
    const grader::TimingOptions timing{3, options.runs, true};
    Rows rows;
    for (int k = options.from; k <= options.to; ++k) {
      measure_size(k, timing, device.properties.multiProcessorCount, rows);
    }
    std::ostringstream md;
    md << bench::machine_line(bench::describe_machine(device.description, 0, {})) << "\n\nTimes in ms: CUDA events, L2 flushed before each run, median of "
       << options.runs << " runs after 3 warm-up runs; every result checked against the CPU first.\n\n"
       << "Scan of int32 (inclusive sum); % of a device-to-device copy's speed (8 bytes an element):\n\n"
       << "| size | copy | CUB InclusiveSum | scan v11 | v11 ÷ CUB (speed) |\n|---|---:|---:|---:|---:|\n";
    for (const std::string& row : rows.scan) md << row << "\n";
    md << "\nHistogram, 1024 bins of uniform int32; % of the grader's streaming read's speed:\n\n"
       << "| size | streaming read | CUB HistogramEven | histogram v6 | v6 ÷ CUB (speed) |\n|---|---:|---:|---:|---:|\n";
    for (const std::string& row : rows.hist1024) md << row << "\n";
    md << "\nHistogram, 4096 bins of uniform uint32, uncapped; % of the streaming read's speed:\n\n"
       << "| size | streaming read | CUB HistogramEven | histogram v4 | v4 ÷ CUB (speed) |\n|---|---:|---:|---:|---:|\n";
    for (const std::string& row : rows.hist4096) md << row << "\n";
    std::printf("%s", md.str().c_str());
    if (!options.out.empty()) {
      const std::filesystem::path folder = std::filesystem::path(options.out).parent_path();
      if (!folder.empty()) std::filesystem::create_directories(folder);
      std::ofstream file(options.out);
      file << md.str();
      if (!file) throw std::runtime_error("cannot write " + options.out);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
  return 0;
}
