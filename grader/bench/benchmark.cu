// The workbook's benchmark: every reference-solution kernel of every lab, timed on the GPU at hand
// next to CUB and the grader's yardsticks (streaming read, device copy, global-atomics baseline),
// on uniform, normal(500, 30) and all-equal data. Every result is checked against the CPU once
// before it is timed; a wrong one is reported WRONG and not timed.
//   meson compile -C build bench      or      build/grader/bench/benchmark --out DIR
// Options: --out DIR (writes benchmark.txt, .json, .csv), --runs N (timed runs, at least 20),
//          --only TEXT (only the groups whose name contains TEXT, e.g. --only scan).
#include <cctype>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "grader/bench/bench_inputs.hpp"
#include "grader/bench/bench_report.hpp"
#include "grader/bench/cub_wrappers.cuh"
#include "grader/core/compare.hpp"
#include "grader/core/cpu_histograms.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/equalization_reference.hpp"
#include "grader/core/scan_reference.hpp"
#include "grader/core/scan_yardsticks.cuh"
#include "grader/core/timing.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab01_global_atomics.cuh"
#include "lab02_unrolling_ilp.cuh"
#include "lab03_shared_privatization.cuh"
#include "lab04_thread_per_bin.cuh"
#include "lab05_scan_warps.cuh"
#include "lab06_histogram_equalization.cuh"

namespace bench {
namespace {

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

int sm_count() { return grader::device_status().properties.multiProcessorCount; }

// ---- 1024 bins of int samples: labs 01 to 04 -----------------------------------------------------
void bench_1024_bins(Bench& b, Distribution dist) {
  constexpr int kBins = 1024;
  const std::string group = "1024-bin histogram";
  const std::string name = distribution_name(dist);
  const std::vector<int> samples = int_samples(dist, kIntSamples, kBins);
  const int n = static_cast<int>(samples.size());
  const std::vector<int> expected = grader::cpu_histogram(samples, kBins);
  grader::DeviceBuffer<int> d_samples(samples);
  grader::DeviceBuffer<int> d_bins(kBins);
  const int* in = d_samples.data();
  int* out = d_bins.data();
  const double bytes = 4.0 * n;

  Yardsticks y;
  const grader::Measurement read = grader::measure_read_bandwidth(in, samples.size());
  y.read_ms = read.time_ms.median;
  b.yardstick(group, "grader streaming read", name, read, y);
  const Row& base = b.measure(group, "grader global atomics (baseline)", "grid-stride", name, bytes,
                              expected, d_bins, [&] {
    GRADER_CUDA_CHECK(cudaMemsetAsync(out, 0, kBins * sizeof(int)));
    grader::baseline_histogram(in, n, out, kBins);
  }, y, true);
  y.baseline_ms = base.time.median;
  CubHistogramEven<int, int> cub(in, n, out, kBins);
  const Row& cub_row = b.measure(group, "CUB HistogramEven", "CUB's own", name, bytes, expected,
                                 d_bins, [&] { cub(); }, y, true);
  y.cub_ms = cub_row.time.median;

  const auto l01s = lab01::fastest_slice_launch();
  const auto l01g = lab01::fastest_grid_stride_launch(sm_count());
  b.measure(group, "lab01 v1 slices", lab01::describe(l01s), name, bytes, expected, d_bins,
            [&] { lab01::histogram_v1_slices(in, n, out, l01s); }, y);
  b.measure(group, "lab01 v2 grid-stride", lab01::describe(l01g), name, bytes, expected, d_bins,
            [&] { lab01::histogram_v2_grid_stride(in, n, out, l01g); }, y);
  const auto l02 = lab02::fastest_slice_launch();
  b.measure(group, "lab02 v1 slices", lab02::describe(l02), name, bytes, expected, d_bins,
            [&] { lab02::histogram_v1_slices(in, n, out, l02); }, y);
  b.measure(group, "lab02 v2 pragma unroll", lab02::describe(l02), name, bytes, expected, d_bins,
            [&] { lab02::histogram_v2_pragma_unroll(in, n, out, l02); }, y);
  b.measure(group, "lab02 v3 manual ILP", lab02::describe(l02), name, bytes, expected, d_bins,
            [&] { lab02::histogram_v3_manual_ilp(in, n, out, l02); }, y);
  const auto l03s = lab03::fastest_slice_launch();
  const auto l03g = lab03::fastest_grid_stride_launch(sm_count());
  b.measure(group, "lab03 v1 shared slices", lab03::describe(l03s), name, bytes, expected, d_bins,
            [&] { lab03::histogram_v1_shared_slices(in, n, out, l03s); }, y);
  b.measure(group, "lab03 v2 shared grid-stride", lab03::describe(l03g), name, bytes, expected,
            d_bins, [&] { lab03::histogram_v2_shared_grid_stride(in, n, out, l03g); }, y);
  struct Lab04Version {
    const char* name;
    int bins_per_thread;
    void (*launcher)(const int*, int, int*, lab04::ChunkLaunch);
  };
  const Lab04Version lab04_versions[] = {
      {"lab04 v1 inverse", lab04::kBinsPerThreadInverse, lab04::histogram_v1_inverse},
      {"lab04 v2 banks", lab04::kBinsPerThreadBanks, lab04::histogram_v2_banks},
      {"lab04 v3 banks2", lab04::kBinsPerThreadBanks2, lab04::histogram_v3_banks2},
      {"lab04 v4 banks4", lab04::kBinsPerThreadBanks4, lab04::histogram_v4_banks4}};
  for (const Lab04Version& v : lab04_versions) {
    const lab04::ChunkLaunch launch{lab04::threads_to_cover_the_bins(v.bins_per_thread),
                                    lab04::fastest_samples_per_block()};
    b.measure(group, v.name, lab04::describe(launch), name, bytes, expected, d_bins,
              [&] { v.launcher(in, n, out, launch); }, y);
  }
}

// ---- 4096 bins of unsigned values, and the saturated histogram: lab 03 (c) -----------------------
void bench_4096_bins(Bench& b, Distribution dist) {
  constexpr int kBins = lab03::kWideBins;
  const std::string group = "4096-bin histogram";
  const std::string name = distribution_name(dist);
  const std::vector<int> ints = int_samples(dist, kIntSamples, kBins);
  const std::vector<unsigned int> values(ints.begin(), ints.end());
  const int n = static_cast<int>(values.size());
  const std::vector<unsigned int> expected = grader::cpu_value_histogram(values, kBins);
  const std::vector<unsigned int> capped = grader::cpu_saturate(expected, kSaturationCap);
  grader::DeviceBuffer<unsigned int> d_values(values);
  grader::DeviceBuffer<unsigned int> d_bins(kBins);
  const unsigned int* in = d_values.data();
  unsigned int* out = d_bins.data();
  const int* in_as_int = reinterpret_cast<const int*>(in);  // the values are < 4096: same bits
  const double bytes = 4.0 * n;

  Yardsticks y;
  const grader::Measurement read = grader::measure_read_bandwidth(in_as_int, values.size());
  y.read_ms = read.time_ms.median;
  b.yardstick(group, "grader streaming read", name, read, y);
  const Row& base = b.measure(group, "grader global atomics (baseline)", "grid-stride", name, bytes,
                              expected, d_bins, [&] {
    GRADER_CUDA_CHECK(cudaMemsetAsync(out, 0, kBins * sizeof(unsigned int)));
    grader::baseline_histogram(in_as_int, n, reinterpret_cast<int*>(out), kBins);
  }, y, true);
  y.baseline_ms = base.time.median;
  CubHistogramEven<unsigned int, unsigned int> cub(in, n, out, kBins);
  const Row& cub_row = b.measure(group, "CUB HistogramEven", "CUB's own", name, bytes, expected,
                                 d_bins, [&] { cub(); }, y, true);
  y.cub_ms = cub_row.time.median;
  const auto launch = lab03::fastest_grid_stride_launch(sm_count());
  b.measure(group, "lab03 v4 wide", lab03::describe(launch), name, bytes, expected, d_bins,
            [&] { lab03::histogram_v4_wide(in, n, out, launch); }, y);
  b.measure(group, "lab03 v4 wide + saturate_v4", lab03::describe(launch) + ", cap 127", name, bytes,
            capped, d_bins, [&] {
    lab03::histogram_v4_wide(in, n, out, launch);
    lab03::saturate_v4(out, kBins, kSaturationCap);
  }, y);
}

// A global-atomics byte histogram: the baseline of the byte group (the grader's takes ints).
__global__ void byte_global_atomics(const unsigned char* bytes, int n, unsigned int* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&bins[bytes[i]], 1u);
  }
}

// ---- 256 bins of bytes (lab 03 (b), lab 06 stage 1), letters (lab 03 (d)), lab 06's stages ------
void bench_bytes(Bench& b, Distribution dist) {
  const std::string name = distribution_name(dist, true);
  const std::vector<unsigned char> bytes = byte_samples(dist, kByteSamples);
  const int n = static_cast<int>(bytes.size());
  grader::DeviceBuffer<unsigned char> d_bytes(bytes);
  const unsigned char* in = d_bytes.data();
  const int* in_as_int = reinterpret_cast<const int*>(in);
  const double in_bytes = static_cast<double>(n);

  const std::string group = "256-bin byte histogram";
  const std::vector<unsigned int> expected = grader::cpu_byte_histogram(bytes);
  grader::DeviceBuffer<unsigned int> d_bins(lab03::kByteBins);
  unsigned int* out = d_bins.data();
  Yardsticks y;
  const grader::Measurement read = grader::measure_read_bandwidth(in_as_int, bytes.size() / 4);
  y.read_ms = read.time_ms.median;
  b.yardstick(group, "grader streaming read", name, read, y);
  const int blocks = 4 * sm_count();
  const Row& base = b.measure(group, "global atomics on bytes (baseline)",
                              std::to_string(blocks) + " blocks of 256", name, in_bytes, expected,
                              d_bins, [&] {
    GRADER_CUDA_CHECK(cudaMemsetAsync(out, 0, lab03::kByteBins * sizeof(unsigned int)));
    byte_global_atomics<<<blocks, 256>>>(in, n, out);
  }, y, true);
  y.baseline_ms = base.time.median;
  CubHistogramEven<unsigned char, unsigned int> cub(in, n, out, lab03::kByteBins);
  const Row& cub_row = b.measure(group, "CUB HistogramEven", "CUB's own", name, in_bytes, expected,
                                 d_bins, [&] { cub(); }, y, true);
  y.cub_ms = cub_row.time.median;
  b.measure(group, "lab03 v3 bytes", std::to_string(blocks) + " blocks of 256", name, in_bytes,
            expected, d_bins, [&] { lab03::histogram_v3_bytes(in, n, out, blocks); }, y);
  const auto l06 = lab06::fastest_histogram_launch(sm_count());
  b.measure(group, "lab06 histogram_256", lab06::describe(l06), name, in_bytes, expected, d_bins,
            [&] { lab06::histogram_256(in, n, out, l06); }, y);

  // Letters: 7 bins; random bytes hold a tenth of letters, all-equal bytes are all 'e'.
  Yardsticks letters_y;
  letters_y.read_ms = y.read_ms;
  grader::DeviceBuffer<unsigned int> d_letters(lab03::kLetterBins);
  const auto l03 = lab03::fastest_grid_stride_launch(sm_count());
  b.measure("7-bin letter histogram", "lab03 v5 letters", lab03::describe(l03), name, in_bytes,
            grader::cpu_letter_histogram(bytes, lab03::kLettersPerBin), d_letters,
            [&] { lab03::histogram_v5_letters(in, n, d_letters.data(), l03); }, letters_y);

  // Lab 06 on a 16384 x 8192 image of these bytes: the small stages, the remap, the pipeline.
  const std::string eq = "equalization (lab06)";
  const std::vector<unsigned> cdf = grader::cpu_exclusive_cdf(grader::cpu_gray_histogram(bytes));
  const std::vector<std::uint8_t> lut = grader::cpu_equalization_lut(cdf);
  grader::DeviceBuffer<unsigned> d_hist(std::vector<unsigned>(expected.begin(), expected.end()));
  grader::DeviceBuffer<unsigned> d_cdf(lab06::kCdfEntries);
  grader::DeviceBuffer<std::uint8_t> d_lut(lab06::kGrayLevels);
  grader::DeviceBuffer<std::uint8_t> d_out(bytes.size());
  Yardsticks none;
  b.measure(eq, "lab06 cdf_exclusive_scan", "one block", name, 4.0 * lab06::kGrayLevels, cdf, d_cdf,
            [&] { lab06::cdf_exclusive_scan(d_hist.data(), d_cdf.data()); }, none);
  d_cdf.upload(cdf);
  b.measure(eq, "lab06 build_lut", "one block", name, 4.0 * lab06::kCdfEntries, lut, d_lut,
            [&] { lab06::build_lut(d_cdf.data(), d_lut.data()); }, none);
  d_lut.upload(lut);
  Yardsticks copy_y;
  grader::DeviceBuffer<int> d_copy(bytes.size() / 4);
  const grader::Measurement copy =
      grader::measure_copy_bandwidth(in_as_int, d_copy.data(), bytes.size() / 4);
  copy_y.copy_ms = copy.time_ms.median;
  b.yardstick(eq, "grader device copy", name, copy, copy_y);
  const std::vector<std::uint8_t> remapped = grader::cpu_remap(bytes, lut);
  b.measure(eq, "lab06 remap", "its own", name, 2.0 * n, remapped, d_out,
            [&] { lab06::remap(in, n, d_lut.data(), d_out.data()); }, copy_y);
  const lab06::Workspace workspace{d_hist.data(), d_cdf.data(), d_lut.data()};
  b.measure(eq, "lab06 equalize (4 stages)", "16384 x 8192", name, 2.0 * n, remapped, d_out,
            [&] { lab06::equalize(in, kImageWidth, n / kImageWidth, d_out.data(), workspace); },
            copy_y);
}

// ---- Scans of 2^25 int32: lab 05 ---------------------------------------------------------------
void bench_scans(Bench& b) {
  const std::string group = "scan (int32)";
  const std::string name = "uniform [-1000, 1000]";
  const std::vector<int> values = grader::uniform_values(kIntSamples, -1000, 1000, 5);
  const int n = static_cast<int>(values.size());
  grader::DeviceBuffer<int> d_in(values), d_out(values.size());
  grader::DeviceBuffer<unsigned char> d_work(lab05::scan_workspace_bytes(n));
  const int* in = d_in.data();
  int* out = d_out.data();
  const double bytes = 8.0 * n;
  const std::vector<int> whole = grader::cpu_inclusive_scan(values);

  Yardsticks y;
  const grader::Measurement read = grader::measure_read_bandwidth(in, values.size());
  const grader::Measurement copy = grader::measure_copy_bandwidth(in, out, values.size());
  y.copy_ms = copy.time_ms.median;
  b.yardstick(group, "grader streaming read", name, read, Yardsticks{});
  b.yardstick(group, "grader device copy", name, copy, y);
  CubInclusiveSum cub(in, out, n);
  const Row& cub_row = b.measure(group, "CUB DeviceScan::InclusiveSum", "CUB's own", name, bytes,
                                 whole, d_out, [&] { cub(); }, y, true);
  y.cub_ms = cub_row.time.median;

  const lab05::BlockScanLaunch tile{lab05::kMaxTile};
  const std::vector<int> tiles = grader::cpu_inclusive_scan(values, lab05::kMaxTile);
  const std::string tile_shape = lab05::describe(tile) + " (block-local)";
  b.measure(group, "lab05 v1 Hillis-Steele", tile_shape, name, bytes, tiles, d_out,
            [&] { lab05::scan_v1_hillis_steele(in, n, out, tile); }, y);
  b.measure(group, "lab05 v2 Blelloch", tile_shape, name, bytes, tiles, d_out,
            [&] { lab05::scan_v2_blelloch(in, n, out, tile); }, y);
  b.measure(group, "lab05 v3 Blelloch padded", tile_shape, name, bytes, tiles, d_out,
            [&] { lab05::scan_v3_blelloch_padded(in, n, out, tile); }, y);
  b.measure(group, "lab05 v4 warp shuffle", tile_shape, name, bytes, tiles, d_out,
            [&] { lab05::scan_v4_warp_shuffle(in, n, out, tile); }, y);
  const auto l05 = lab05::fastest_multi_block_launch();
  b.measure(group, "lab05 v5 multi-block", lab05::describe(l05) + " (whole array)", name, bytes,
            whole, d_out, [&] { lab05::scan_v5_multi_block(in, n, out, d_work.data(), l05); }, y);
  b.measure(group, "lab05 v6 single pass", "its own (whole array)", name, bytes, whole, d_out,
            [&] { lab05::scan_v6_single_pass(in, n, out, d_work.data()); }, y);
}

// The header line: GPU, driver (the kernel module's version where Linux shows it), runtime, date.
Header describe_machine(const std::string& gpu, int runs) {
  Header h;
  h.gpu = gpu;
  h.runs = runs;
  int driver = 0, runtime = 0;
  GRADER_CUDA_CHECK(cudaDriverGetVersion(&driver));
  GRADER_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  auto version = [](int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); };
  std::string module;
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string line, word;
  if (std::getline(proc, line)) {
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...":
    // the first word shaped like 580.159.04.
    std::istringstream words(line);
    while (module.empty() && words >> word) {
      if (word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0]))) {
        module = word;
      }
    }
  }
  h.driver = (module.empty() ? std::string() : module + " ") + "(CUDA " + version(driver) + ")";
  h.runtime = version(runtime);
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  h.date = date;
  return h;
}

bool selected(const Options& o, const std::string& group) {
  return o.only.empty() || group.find(o.only) != std::string::npos;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (arg.rfind(flag + "=", 0) == 0) return arg.substr(flag.size() + 1);
      if (arg == flag && i + 1 < argc) return argv[++i];
      throw std::runtime_error(flag + " needs a value");
    };
    if (arg.rfind("--out", 0) == 0) {
      o.out_dir = value("--out");
    } else if (arg.rfind("--runs", 0) == 0) {
      o.runs = std::stoi(value("--runs"));
      if (o.runs < 20) throw std::runtime_error("--runs: at least 20 timed runs");
    } else if (arg.rfind("--only", 0) == 0) {
      o.only = value("--only");
    } else if (arg.rfind("--data", 0) == 0) {
      // The run target passes the standard data file like every tool's; inputs are generated here.
      if (arg == "--data") ++i;
    } else {
      throw std::runtime_error("unknown option " + arg +
                               " (options: --out DIR, --runs N, --only TEXT)");
    }
  }
  return o;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  try {
    const bench::Options options = bench::parse(argc, argv);
    const grader::DeviceStatus& device = grader::device_status();
    if (!device.available) {
      std::fprintf(stderr, "error: %s\n", device.reason.c_str());
      return 2;
    }
    const bench::Header header = bench::describe_machine(device.description, options.runs);
    std::printf("%s\n%s\n", header.text().c_str(), bench::table_heading().c_str());
    bench::Bench b(options);
    for (bench::Distribution d : bench::kDistributions) {
      if (bench::selected(options, "1024-bin histogram")) bench::bench_1024_bins(b, d);
      if (bench::selected(options, "4096-bin histogram")) bench::bench_4096_bins(b, d);
      if (bench::selected(options, "256-bin byte histogram")) bench::bench_bytes(b, d);
    }
    if (bench::selected(options, "scan (int32)")) bench::bench_scans(b);
    const std::vector<bench::Target> targets = bench::evaluate_targets(b.rows());
    const std::string table = bench::format_table(header, b.rows(), targets);
    std::printf("\n%s", bench::format_targets(targets).c_str());
    if (!options.out_dir.empty()) bench::write_files(options.out_dir, header, b.rows(), targets, table);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
  return 0;
}
