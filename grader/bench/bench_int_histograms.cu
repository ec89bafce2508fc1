// The benchmark's int-sample groups: 1024 bins (labs 01 to 04) and 4096 bins with saturation
// (lab 03 (c)), next to the grader's read and baseline and CUB's HistogramEven.
#include <string>
#include <vector>

#include "grader/bench/bench_harness.cuh"
#include "grader/bench/cub_wrappers.cuh"
#include "grader/core/cpu_histograms.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab01_global_atomics.cuh"
#include "lab02_unrolling_ilp.cuh"
#include "lab03_shared_privatization.cuh"
#include "lab04_thread_per_bin.cuh"

namespace bench {

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
  b.measure(group, "lab01 v1 slices", grader::describe(l01s), name, bytes, expected, d_bins,
            [&] { lab01::histogram_v1_slices(in, n, out, l01s); }, y);
  b.measure(group, "lab01 v2 grid-stride", grader::describe(l01g), name, bytes, expected, d_bins,
            [&] { lab01::histogram_v2_grid_stride(in, n, out, l01g); }, y);
  const auto l02 = lab02::fastest_slice_launch();
  b.measure(group, "lab02 v1 slices", grader::describe(l02), name, bytes, expected, d_bins,
            [&] { lab02::histogram_v1_slices(in, n, out, l02); }, y);
  b.measure(group, "lab02 v2 pragma unroll", grader::describe(l02), name, bytes, expected, d_bins,
            [&] { lab02::histogram_v2_pragma_unroll(in, n, out, l02); }, y);
  b.measure(group, "lab02 v3 manual ILP", grader::describe(l02), name, bytes, expected, d_bins,
            [&] { lab02::histogram_v3_manual_ilp(in, n, out, l02); }, y);
  const auto l03s = lab03::fastest_slice_launch();
  const auto l03g = lab03::fastest_grid_stride_launch(sm_count());
  b.measure(group, "lab03 v1 shared slices", grader::describe(l03s), name, bytes, expected, d_bins,
            [&] { lab03::histogram_v1_shared_slices(in, n, out, l03s); }, y);
  b.measure(group, "lab03 v2 shared grid-stride", grader::describe(l03g), name, bytes, expected,
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
    b.measure(group, v.name, grader::describe(launch), name, bytes, expected, d_bins,
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
  b.measure(group, "lab03 v4 wide", grader::describe(launch), name, bytes, expected, d_bins,
            [&] { lab03::histogram_v4_wide(in, n, out, launch); }, y);
  b.measure(group, "lab03 v4 wide + saturate_v4", grader::describe(launch) + ", cap 127", name, bytes,
            capped, d_bins, [&] {
    lab03::histogram_v4_wide(in, n, out, launch);
    lab03::saturate_v4(out, kBins, kSaturationCap);
  }, y);
}

}  // namespace bench
