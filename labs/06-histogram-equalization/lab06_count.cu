// Lab 06's graded functions, once each, for the counting mode and ncu (count_program.cuh): an
// image 256 pixels wide and n / 256 high (--n=65536: 256 x 256).
#include "count_program.cuh"
#include "lab06_histogram_equalization.cuh"

int main(int argc, char** argv) {
  using namespace count_program;
  const Options o = parse(argc, argv);
  const int width = 256, height = static_cast<int>(o.n / 256 > 0 ? o.n / 256 : 1), n = width * height;
  const Buffer<std::uint8_t> pixels(values<std::uint8_t>(o, n, lab06::kGrayLevels));
  const Buffer<unsigned> bins_in(values<unsigned>(o, lab06::kGrayLevels, 1000));
  return run_calls(o, {
    {"histogram_256", [&] {
       Buffer<unsigned> bins(lab06::kGrayLevels);
       lab06::histogram_256(pixels.d, n, bins.d, {64, 256});
       print_checksum("histogram_256", bins);
     }},
    {"cdf_exclusive_scan", [&] {
       Buffer<unsigned> cdf(lab06::kCdfEntries);
       lab06::cdf_exclusive_scan(bins_in.d, cdf.d);
       print_checksum("cdf_exclusive_scan", cdf);
     }},
    {"build_lut", [&] {
       std::vector<unsigned> cdf_host(lab06::kCdfEntries);
       for (int i = 0; i < lab06::kCdfEntries; ++i) cdf_host[i] = static_cast<unsigned>(i) * static_cast<unsigned>(n / 256);
       Buffer<unsigned> cdf(cdf_host);
       Buffer<std::uint8_t> lut(lab06::kGrayLevels);
       lab06::build_lut(cdf.d, lut.d);
       print_checksum("build_lut", lut);
     }},
    {"remap", [&] {
       Buffer<std::uint8_t> lut(values<std::uint8_t>(o, lab06::kGrayLevels, 256));
       Buffer<std::uint8_t> out(static_cast<std::size_t>(n));
       lab06::remap(pixels.d, n, lut.d, out.d);
       print_checksum("remap", out);
     }},
    {"equalize", [&] {
       Buffer<unsigned> bins(lab06::kGrayLevels);
       Buffer<unsigned> cdf(lab06::kCdfEntries);
       Buffer<std::uint8_t> lut(lab06::kGrayLevels);
       Buffer<std::uint8_t> out(static_cast<std::size_t>(n));
       lab06::equalize(pixels.d, width, height, out.d, {bins.d, cdf.d, lut.d});
       print_checksum("equalize", out);
     }},
  });
}
