// Lab 02's graded functions, once each, for the counting mode and ncu (count_program.cuh).
#include "count_program.cuh"
#include "lab02_unrolling_ilp.cuh"

int main(int argc, char** argv) {
  using namespace count_program;
  const Options o = parse(argc, argv);
  const int n = static_cast<int>(o.n);
  const Buffer<int> samples(values<int>(o, n, lab02::kNumBins));
  auto version = [&](const char* name, void (*launcher)(const int*, int, int*, lab02::SliceLaunch)) {
    return Call{name, [&, name, launcher] {
                  Buffer<int> bins(lab02::kNumBins);
                  launcher(samples.d, n, bins.d, {256, 16});
                  print_checksum(name, bins);
                }};
  };
  return run_calls(o, {version("histogram_v1_slices", lab02::histogram_v1_slices),
                       version("histogram_v2_pragma_unroll", lab02::histogram_v2_pragma_unroll),
                       version("histogram_v3_manual_ilp", lab02::histogram_v3_manual_ilp)});
}
