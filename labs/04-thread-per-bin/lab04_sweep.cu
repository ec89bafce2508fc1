// Handout question 5.1: time the four thread-per-bin kernels of the graded submission over chunk
// sizes on this GPU, every run checked for correctness, next to the grader's global-atomics
// baseline and its privatized shared-memory histogram measured on the same data. --csv=FILE also
// writes the table as CSV for grader/bench/plot_sweeps.py.
//   meson compile -C build lab04-sweep      or      build/labs/lab04_sweep --data=FILE [--csv=FILE]
#include <cstdio>
#include <string>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/launch_text.hpp"
#include "grader/core/privatized_yardstick.cuh"
#include "grader/core/run_options.hpp"
#include "grader/core/standard_data.hpp"
#include "grader/core/sweep_csv.hpp"
#include "grader/core/sweep_main.cuh"
#include "grader/core/timing.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab04_thread_per_bin.cuh"

namespace {

struct Version {
  const char* name;
  int bins_per_thread;
  void (*launcher)(const int*, int, int*, lab04::ChunkLaunch);
};

constexpr Version kVersions[] = {
    {"v1 inverse", lab04::kBinsPerThreadInverse, lab04::histogram_v1_inverse},
    {"v2 banks", lab04::kBinsPerThreadBanks, lab04::histogram_v2_banks},
    {"v3 banks2", lab04::kBinsPerThreadBanks2, lab04::histogram_v3_banks2},
    {"v4 banks4", lab04::kBinsPerThreadBanks4, lab04::histogram_v4_banks4},
};

// The handout's table is 1024..8192; smaller chunks show the cost of one global atomic per bin
// per block, which grows as the chunks shrink.
constexpr int kChunkSizes[] = {256, 512, 1024, 2048, 4096, 8192};

constexpr grader::TimingOptions kTiming{2, 10, true};

}  // namespace

int main(int argc, char** argv) {
  grader::SweepCsv csv(argc, argv);
  return grader::run_sweep(argc, argv, [&](const grader::DeviceStatus& device) {
    const std::vector<int>& samples = grader::standard_samples(lab04::kNumBins);
    const int n = static_cast<int>(samples.size());
    const std::vector<int> expected = grader::cpu_histogram(samples, lab04::kNumBins);
    grader::DeviceBuffer<int> d_samples(samples);
    grader::DeviceBuffer<int> d_bins(lab04::kNumBins);

    std::printf("Lab 04 sweep on %s, %d samples, %d bins\n", device.description.c_str(), n,
                lab04::kNumBins);
    const double baseline =
        grader::measure_baseline_histogram(d_samples.data(), n, lab04::kNumBins).time_ms.median;
    const double privatized =
        grader::measure_privatized_histogram(d_samples.data(), n, lab04::kNumBins).time_ms.median;
    std::printf("yardsticks: global atomics (grader baseline) %.3f ms; privatized shared-memory "
                "histogram %.3f ms\n", baseline, privatized);
    std::printf("%-10s %7s %6s %8s %11s %10s %10s %12s  %s\n", "version", "chunk", "block",
                "blocks", "atomics", "time (ms)", "Gcmp/s", "x privatized", "result");
    csv.begin("04", "Lab 04 sweep", device.description);
    csv.plot("chunk", "samples per block (chunk)", "time_ms", "time (ms)", "{version}, {block} threads/block");
    csv.reference("global atomics (grader baseline)", baseline);
    csv.reference("privatized shared-memory histogram", privatized);
    csv.row({"version", "chunk", "block", "blocks", "atomics", "time_ms", "gcmp_per_s", "x_privatized",
             "result"});
    for (const Version& version : kVersions) {
      for (int chunk : kChunkSizes) {
        const lab04::ChunkLaunch launch{lab04::threads_to_cover_the_bins(version.bins_per_thread),
                                        chunk};
        auto run = [&] { version.launcher(d_samples.data(), n, d_bins.data(), launch); };
        run();
        grader::check_kernel_ran(version.name, grader::describe(launch));
        const auto comparison =
            grader::compare_exact(expected, d_bins.download(), static_cast<int>(grader::kPoisonWord));
        const double ms = grader::time_gpu_ms(run, kTiming).median;
        const long long blocks = (n + chunk - 1LL) / chunk;
        // Every sample is compared with every bin: n x 1024 comparisons whatever the version.
        const double comparisons = double(n) * lab04::kNumBins;
        const char* result = comparison.matches() ? "correct" : "WRONG";
        std::printf("%-10s %7d %6d %8lld %11lld %10.3f %10.0f %12.1f  %s\n", version.name, chunk,
                    launch.threads_per_block, blocks, blocks * lab04::kNumBins, ms,
                    comparisons / (ms * 1e6), ms / privatized, result);
        csv.row({version.name, csv.number(chunk), csv.number(launch.threads_per_block), csv.number(blocks),
                 csv.number(blocks * lab04::kNumBins), csv.number(ms, 4),
                 csv.number(comparisons / (ms * 1e6), 0), csv.number(ms / privatized, 2), result});
      }
    }
  });
}
