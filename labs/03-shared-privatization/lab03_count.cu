// Lab 03's graded functions, once each, for the counting mode and ncu (count_program.cuh).
#include "count_program.cuh"
#include "lab03_shared_privatization.cuh"

int main(int argc, char** argv) {
  using namespace count_program;
  const Options o = parse(argc, argv);
  const int n = static_cast<int>(o.n);
  const Buffer<int> samples(values<int>(o, n, lab03::kNumBins));
  const Buffer<unsigned char> bytes(values<unsigned char>(o, n, 256));
  const Buffer<unsigned int> wide(values<unsigned int>(o, n, lab03::kWideBins));
  const Buffer<unsigned char> text(values<unsigned char>(o, n, 26, 'a'));
  return run_calls(o, {
    {"histogram_v1_shared_slices", [&] {
       Buffer<int> bins(lab03::kNumBins);
       lab03::histogram_v1_shared_slices(samples.d, n, bins.d, {256, 16});
       print_checksum("histogram_v1_shared_slices", bins);
     }},
    {"histogram_v2_shared_grid_stride", [&] {
       Buffer<int> bins(lab03::kNumBins);
       lab03::histogram_v2_shared_grid_stride(samples.d, n, bins.d, {64, 256});
       print_checksum("histogram_v2_shared_grid_stride", bins);
     }},
    {"histogram_v3_bytes", [&] {
       Buffer<unsigned int> bins(lab03::kByteBins);
       lab03::histogram_v3_bytes(bytes.d, n, bins.d, 64);
       print_checksum("histogram_v3_bytes", bins);
     }},
    {"histogram_v4_wide", [&] {
       Buffer<unsigned int> bins(lab03::kWideBins);
       lab03::histogram_v4_wide(wide.d, n, bins.d, {64, 256});
       print_checksum("histogram_v4_wide", bins);
     }},
    {"saturate_v4", [&] {
       Buffer<unsigned int> bins(values<unsigned int>(o, lab03::kWideBins, 64));
       lab03::saturate_v4(bins.d, lab03::kWideBins, 32);
       print_checksum("saturate_v4", bins);
     }},
    {"histogram_v5_letters", [&] {
       Buffer<unsigned int> bins(lab03::kLetterBins);
       lab03::histogram_v5_letters(text.d, n, bins.d, {64, 256});
       print_checksum("histogram_v5_letters", bins);
     }},
  });
}
