// The benchmark's byte groups: 256 bins (lab 03 (b), lab 06 stage 1), 7 letter bins (lab 03 (d))
// and lab 06's equalization stages, next to a byte baseline, CUB and the grader's read and copy.
#include <cstdint>
#include <string>
#include <vector>

#include "grader/bench/bench_harness.cuh"
#include "grader/bench/cub_wrappers.cuh"
#include "grader/core/cpu_histograms.hpp"
#include "grader/core/cuda_check.cuh"
#include "grader/core/equalization_reference.hpp"
#include "grader/core/scan_yardsticks.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab03_shared_privatization.cuh"
#include "lab06_histogram_equalization.cuh"

namespace bench {
namespace {

// A global-atomics byte histogram: the baseline of the byte group (the grader's takes ints).
__global__ void byte_global_atomics(const unsigned char* bytes, int n, unsigned int* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&bins[bytes[i]], 1u);
  }
}

}  // namespace

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
  b.measure(group, "lab06 histogram_256", grader::describe(l06), name, in_bytes, expected, d_bins,
            [&] { lab06::histogram_256(in, n, out, l06); }, y);

  // Letters: 7 bins; random bytes hold a tenth of letters, all-equal bytes are all 'e'.
  Yardsticks letters_y;
  letters_y.read_ms = y.read_ms;
  grader::DeviceBuffer<unsigned int> d_letters(lab03::kLetterBins);
  const auto l03 = lab03::fastest_grid_stride_launch(sm_count());
  b.measure("7-bin letter histogram", "lab03 v5 letters", grader::describe(l03), name, in_bytes,
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

}  // namespace bench
