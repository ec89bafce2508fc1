// The benchmark's int-sample groups: 1024 bins (labs 01 to 04) and 4096 bins with saturation
// (lab 03 (c)), the references of grader/bench/references/ next to the grader's read and baseline
// and CUB's HistogramEven. Rows keep the names of the lab versions they reproduce.
#include <optional>
#include <string>
#include <vector>

#include "grader/bench/bench_harness.cuh"
#include "grader/bench/cub_wrappers.cuh"
#include "grader/bench/references/references.cuh"
#include "grader/core/cpu_histograms.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/yardsticks.cuh"

namespace bench {

namespace ref = bench::reference;

// ---- 1024 bins of int samples: labs 01 to 04 -----------------------------------------------------
void bench_1024_bins(Bench& b, Distribution dist) {
  constexpr int kBins = ref::kBins1024;
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

  Yardsticks y = b.read_yardstick(group, name, in, samples.size());
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
  y.cub = [&] { cub(); };

  // Every kernel of the group: its row name, launch text, whether it takes any pointer, and a call.
  std::optional<EdgeSuite<int, int>> suite;  // built on the first edge check, once per run
  struct Version {
    std::string kernel, launch;
    bool any_pointer;
    EdgeRun<int, int> run;
  };
  const ref::SliceLaunch gs = ref::global_slice_launch();
  const ref::GridLaunch gg = ref::global_grid_launch(sm_count());
  const ref::SliceLaunch ss = ref::shared_slice_launch();
  const ref::GridLaunch sg = ref::shared_grid_launch(sm_count());
  std::vector<Version> versions = {
      {"lab01 v1 slices", grader::describe(gs), true,
       [=](const int* i, int k, int* o) { ref::histogram_1024_v1_global_slices(i, k, o, gs); }},
      {"lab01 v2 grid-stride", grader::describe(gg), true,
       [=](const int* i, int k, int* o) { ref::histogram_1024_v2_global_grid_stride(i, k, o, gg); }},
      // The same kernel as lab01 v1 (lab 02 starts from it), timed again as the handouts do.
      {"lab02 v1 slices", grader::describe(gs), true,
       [=](const int* i, int k, int* o) { ref::histogram_1024_v1_global_slices(i, k, o, gs); }},
      {"lab02 v2 pragma unroll", grader::describe(gs), true,
       [=](const int* i, int k, int* o) { ref::histogram_1024_v3_global_unroll(i, k, o, gs); }},
      {"lab02 v3 manual ILP", grader::describe(gs), true,
       [=](const int* i, int k, int* o) { ref::histogram_1024_v4_global_ilp(i, k, o, gs); }},
      {"lab03 v1 shared slices", grader::describe(ss), true,
       [=](const int* i, int k, int* o) { ref::histogram_1024_v5_shared_slices(i, k, o, ss); }},
      {"lab03 v2 shared grid-stride", grader::describe(sg), true,
       [=](const int* i, int k, int* o) { ref::histogram_1024_v6_shared_grid_stride(i, k, o, sg); }},
  };
  struct Lab04Version {
    const char* name;
    int bins_per_thread;
    void (*launcher)(const int*, int, int*, ref::ChunkLaunch);
  };
  const Lab04Version lab04_versions[] = {{"lab04 v1 inverse", 1, ref::histogram_tpb_v1_inverse},
                                         {"lab04 v2 banks", 1, ref::histogram_tpb_v2_banks},
                                         {"lab04 v3 banks2", 2, ref::histogram_tpb_v3_banks2},
                                         {"lab04 v4 banks4", 4, ref::histogram_tpb_v4_banks4}};
  for (const Lab04Version& v : lab04_versions) {
    const ref::ChunkLaunch launch = ref::tpb_launch(v.bins_per_thread);
    const auto launcher = v.launcher;
    versions.push_back({v.name, grader::describe(launch), true,
                        [=](const int* i, int k, int* o) { launcher(i, k, o, launch); }});
  }
  for (const Version& v : versions) {
    const std::string& edge = b.edges(v.kernel, [&] {
      if (!suite) {
        suite.emplace(0, kBins - 1, kBins - 1,
                      [](const std::vector<int>& s) { return grader::cpu_histogram(s, ref::kBins1024); });
      }
      return suite->first_failure(v.run, v.any_pointer);
    });
    b.measure(group, v.kernel, v.launch, name, bytes, expected, d_bins, [&] { v.run(in, n, out); }, y,
              false, edge);
  }
}

// ---- 4096 bins of unsigned values, and the saturated histogram: lab 03 (c) -----------------------
void bench_4096_bins(Bench& b, Distribution dist) {
  constexpr int kBins = ref::kBins4096;
  const std::string group = "4096-bin histogram";
  const std::string name = distribution_name(dist);
  const std::vector<int> ints = int_samples(dist, kIntSamples, kBins);
  const std::vector<unsigned int> values(ints.begin(), ints.end());
  const int n = static_cast<int>(values.size());
  const std::vector<unsigned int> expected = grader::cpu_value_histogram(values, kBins);
  const std::vector<unsigned int> capped = grader::cpu_saturate(expected, kSaturationCap);
  grader::DeviceBuffer<unsigned int> d_values(values);
  grader::DeviceBuffer<unsigned int> d_bins(kBins);
  grader::DeviceBuffer<unsigned int> d_done(std::vector<unsigned int>{0});  // v2's block counter
  grader::DeviceBuffer<unsigned int> d_accumulator(std::vector<unsigned int>(kBins, 0));  // v3's
  const unsigned int* in = d_values.data();
  unsigned int* out = d_bins.data();
  const int* in_as_int = reinterpret_cast<const int*>(in);  // the values are < 4096: same bits
  const double bytes = 4.0 * n;

  Yardsticks y = b.read_yardstick(group, name, in_as_int, values.size());
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
  y.cub = [&] { cub(); };

  const ref::GridLaunch launch = ref::shared_grid_launch(sm_count());
  unsigned* done = d_done.data();
  unsigned* accumulator = d_accumulator.data();
  const EdgeRun<unsigned, unsigned> wide = [=](const unsigned* i, int k, unsigned* o) {
    ref::histogram_4096_v1_wide(i, k, o, launch);
  };
  const EdgeRun<unsigned, unsigned> wide_saturate = [=](const unsigned* i, int k, unsigned* o) {
    ref::histogram_4096_v1_wide(i, k, o, launch);
    ref::saturate_4096_v1(o, ref::kBins4096, kSaturationCap);
  };
  const EdgeRun<unsigned, unsigned> saturated = [=](const unsigned* i, int k, unsigned* o) {
    ref::histogram_4096_v2_saturated(i, k, o, kSaturationCap, done, launch);
  };
  const EdgeRun<unsigned, unsigned> rotated = [=](const unsigned* i, int k, unsigned* o) {
    ref::histogram_4096_v3_rotated(i, k, o, kSaturationCap, accumulator, launch);
  };
  const ref::GridLaunch launch_v4 = ref::histogram_4096_v4_launch(sm_count());
  const EdgeRun<unsigned, unsigned> one_block = [=](const unsigned* i, int k, unsigned* o) {
    ref::histogram_4096_v4_one_block_an_sm(i, k, o, kSaturationCap, accumulator, launch_v4);
  };
  auto edges = [&](const std::string& kernel, const EdgeRun<unsigned, unsigned>& run, bool cap) {
    return b.edges(kernel, [&] {
      EdgeSuite<unsigned, unsigned> suite(0, kBins - 1, kBins - 1, [cap](const std::vector<unsigned>& v) {
        const std::vector<unsigned> bins = grader::cpu_value_histogram(v, ref::kBins4096);
        return cap ? grader::cpu_saturate(bins, kSaturationCap) : bins;
      });
      return suite.first_failure(run, true);
    });
  };
  b.measure(group, "lab03 v4 wide", grader::describe(launch), name, bytes, expected, d_bins,
            [&] { wide(in, n, out); }, y, false, edges("lab03 v4 wide", wide, false));
  b.measure(group, "lab03 v4 wide + saturate_v4", grader::describe(launch) + ", cap 127", name, bytes,
            capped, d_bins, [&] { wide_saturate(in, n, out); }, y, false,
            edges("lab03 v4 wide + saturate_v4", wide_saturate, true));
  b.measure(group, "4096 v2 saturated by the last block", grader::describe(launch) + ", cap 127", name,
            bytes, capped, d_bins, [&] { saturated(in, n, out); }, y, false,
            edges("4096 v2 saturated by the last block", saturated, true));
  b.measure(group, "4096 v3 saturated, rotated merge", grader::describe(launch) + ", cap 127", name,
            bytes, capped, d_bins, [&] { rotated(in, n, out); }, y, false,
            edges("4096 v3 saturated, rotated merge", rotated, true));
  b.measure(group, "4096 v4 saturated, one block an SM", grader::describe(launch_v4) + ", cap 127", name,
            bytes, capped, d_bins, [&] { one_block(in, n, out); }, y, false,
            edges("4096 v4 saturated, one block an SM", one_block, true));
}

}  // namespace bench
