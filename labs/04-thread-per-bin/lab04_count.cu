// Lab 04's graded functions, once each, for the counting mode and ncu (count_program.cuh). Each
// version runs with the threads that cover the 1024 bins and a chunk of 4096 samples per block.
#include "count_program.cuh"
#include "lab04_thread_per_bin.cuh"

int main(int argc, char** argv) {
  using namespace count_program;
  const Options o = parse(argc, argv);
  const int n = static_cast<int>(o.n);
  const Buffer<int> samples(values<int>(o, n, lab04::kNumBins));
  auto version = [&](const char* name, void (*launcher)(const int*, int, int*, lab04::ChunkLaunch),
                     int bins_per_thread) {
    return Call{name, [&, name, launcher, bins_per_thread] {
                  Buffer<int> bins(lab04::kNumBins);
                  launcher(samples.d, n, bins.d, {lab04::threads_to_cover_the_bins(bins_per_thread), 4096});
                  print_checksum(name, bins);
                }};
  };
  return run_calls(o, {version("histogram_v1_inverse", lab04::histogram_v1_inverse, lab04::kBinsPerThreadInverse),
                       version("histogram_v2_banks", lab04::histogram_v2_banks, lab04::kBinsPerThreadBanks),
                       version("histogram_v3_banks2", lab04::histogram_v3_banks2, lab04::kBinsPerThreadBanks2),
                       version("histogram_v4_banks4", lab04::histogram_v4_banks4, lab04::kBinsPerThreadBanks4)});
}
