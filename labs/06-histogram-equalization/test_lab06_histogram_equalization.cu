// Lab 06 grader: each stage of histogram equalization, then the whole pipeline, compared exactly
// with the CPU reference (grader/core/equalization_reference.hpp) on images made to break it (one
// gray level, two, the full range, one pixel, odd widths) and on a real photograph when one is
// available; then the pipeline's speed next to a copy of the image on the same GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/equalization_reference.hpp"
#include "grader/core/gpu_references.cuh"
#include "grader/core/keyed_stream.hpp"
#include "grader/core/launch_text.hpp"
#include "grader/core/results.hpp"
#include "grader/core/round_yardsticks.cuh"
#include "grader/core/run_options.hpp"
#include "grader/core/scan_yardsticks.cuh"
#include "grader/core/speed_report.cuh"
#include "grader/core/student_code.hpp"
#include "lab06_histogram_equalization.cuh"
#include "lab06_images.hpp"

namespace {

using grader::GrayImage;
using Bytes = std::vector<std::uint8_t>;
using Counts = std::vector<unsigned>;

// Speed threshold: the whole pipeline reads the image twice and writes it once, so it could run in
// about 1.5 copies of the image; the histogram's atomics make it slower. 20 copies fails a
// histogram made with global atomics (hundreds of copies), not a privatized one.
constexpr double kMaxCopiesOfTheImage = 20.0;

std::uint64_t seed() { return grader::run_options().seed; }
int sm_count() { return grader::device_status().properties.multiProcessorCount; }

// "[what] stage: 3 of 256 levels wrong ..." with a hint when the wrong entries were never written.
template <class T>
::testing::AssertionResult same(const std::string& where, const std::string& entry,
                                const std::vector<T>& expected, const std::vector<T>& got,
                                T poison) {
  std::vector<long long> e(expected.begin(), expected.end()), g(got.begin(), got.end());
  const grader::Comparison c = grader::compare_exact(e, g, static_cast<long long>(poison));
  if (c.matches()) return ::testing::AssertionSuccess();
  ::testing::AssertionResult failure = ::testing::AssertionFailure();
  failure << where << ": " << c.describe(entry);
  if (c.poisoned == c.wrong) failure << "\n  (every wrong entry still holds the grader's fill value: nothing wrote it)";
  return failure;
}

// Device copies of the inputs and poisoned outputs, with the checks every stage shares: the launch
// ran, nothing was written outside any buffer, the input was not modified.
struct Run {
  std::string where;
  ::testing::AssertionResult ok = ::testing::AssertionSuccess();

  template <class T>
  void check_guards(const grader::DeviceBuffer<T>& buffer, const char* name) {
    if (!ok) return;
    const std::string damage = buffer.guard_damage();
    if (!damage.empty()) ok = ::testing::AssertionFailure() << where << " wrote outside " << name << ": " << damage;
  }
  void launched(const std::string& kernel) {
    try {
      grader::check_kernel_ran(kernel, where);
    } catch (const grader::CudaError& error) {
      ok = ::testing::AssertionFailure() << where << ": " << error.what();
    }
  }
};

// A million threads in the fourth shape, most with no pixel: the race pass watches it too (a
// kernel could test its launch shape), so it keeps it whole under small inputs.
std::vector<lab06::HistogramLaunch> histogram_shapes() {
  return {{1, 32}, {7, 128}, {4 * sm_count(), 256}, {1024, 1024}, lab06::fastest_histogram_launch(sm_count())};
}

::testing::AssertionResult histogram_matches(const std::string& what, const GrayImage& image) {
  const int n = static_cast<int>(image.pixels.size());
  for (const lab06::HistogramLaunch& launch : histogram_shapes()) {
    Run run{"[" + what + "] histogram_256 (" + grader::describe(launch) + ")"};
    grader::DeviceBuffer<std::uint8_t> d_pixels(image.pixels);
    grader::DeviceBuffer<unsigned> d_bins(lab06::kGrayLevels);
    lab06::histogram_256(d_pixels.data(), n, d_bins.data(), launch);
    run.launched("histogram_256");
    run.check_guards(d_bins, "the bins");
    run.check_guards(d_pixels, "the image");
    if (!run.ok) return run.ok;
    if (!d_pixels.holds(image.pixels)) return ::testing::AssertionFailure() << run.where << " modified the image";
    const auto result = same(run.where, "level", grader::cpu_gray_histogram(image.pixels), d_bins.download(),
                             grader::kPoisonWord);
    if (!result) return result;
  }
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult cdf_matches(const std::string& what, const Counts& bins) {
  Run run{"[" + what + "] cdf_exclusive_scan"};
  grader::DeviceBuffer<unsigned> d_bins(bins);
  grader::DeviceBuffer<unsigned> d_cdf(lab06::kCdfEntries);
  lab06::cdf_exclusive_scan(d_bins.data(), d_cdf.data());
  run.launched("cdf_exclusive_scan");
  run.check_guards(d_cdf, "the CDF");
  if (!run.ok) return run.ok;
  return same(run.where, "CDF entry", grader::cpu_exclusive_cdf(bins), d_cdf.download(), grader::kPoisonWord);
}

::testing::AssertionResult lut_matches(const std::string& what, const Counts& cdf) {
  Run run{"[" + what + "] build_lut"};
  grader::DeviceBuffer<unsigned> d_cdf(cdf);
  grader::DeviceBuffer<std::uint8_t> d_lut(lab06::kGrayLevels);
  lab06::build_lut(d_cdf.data(), d_lut.data());
  run.launched("build_lut");
  run.check_guards(d_lut, "the table");
  if (!run.ok) return run.ok;
  return same(run.where, "table entry", grader::cpu_equalization_lut(cdf), d_lut.download(), grader::kPoisonByte);
}

::testing::AssertionResult remap_matches(const std::string& what, const Bytes& pixels, const Bytes& lut) {
  Run run{"[" + what + "] remap"};
  grader::DeviceBuffer<std::uint8_t> d_pixels(pixels), d_lut(lut), d_out(pixels.size());
  lab06::remap(d_pixels.data(), static_cast<int>(pixels.size()), d_lut.data(), d_out.data());
  run.launched("remap");
  run.check_guards(d_out, "the output image");
  if (!run.ok) return run.ok;
  return same(run.where, "pixel", grader::cpu_remap(pixels, lut), d_out.download(), grader::kPoisonByte);
}

// The whole pipeline, then each stage's result left in the workspace.
::testing::AssertionResult equalize_matches(const std::string& what, const GrayImage& image) {
  Run run{"[" + what + ", " + std::to_string(image.width) + "x" + std::to_string(image.height) + "] equalize"};
  grader::DeviceBuffer<std::uint8_t> d_in(image.pixels), d_out(image.pixels.size());
  grader::DeviceBuffer<unsigned> d_bins(lab06::kGrayLevels), d_cdf(lab06::kCdfEntries);
  grader::DeviceBuffer<std::uint8_t> d_lut(lab06::kGrayLevels);
  lab06::equalize(d_in.data(), image.width, image.height, d_out.data(), {d_bins.data(), d_cdf.data(), d_lut.data()});
  run.launched("equalize");
  run.check_guards(d_out, "the output image");
  run.check_guards(d_bins, "the workspace's bins");
  run.check_guards(d_cdf, "the workspace's CDF");
  run.check_guards(d_lut, "the workspace's table");
  if (!run.ok) return run.ok;
  const Counts bins = grader::cpu_gray_histogram(image.pixels);
  const Counts cdf = grader::cpu_exclusive_cdf(bins);
  const Bytes lut = grader::cpu_equalization_lut(cdf);
  if (auto r = same(run.where + ", stage 1 (histogram)", "level", bins, d_bins.download(), grader::kPoisonWord); !r) return r;
  if (auto r = same(run.where + ", stage 2 (CDF)", "CDF entry", cdf, d_cdf.download(), grader::kPoisonWord); !r) return r;
  if (auto r = same(run.where + ", stage 3 (table)", "table entry", lut, d_lut.download(), grader::kPoisonByte); !r) return r;
  return same(run.where + ", output", "pixel", grader::cpu_remap(image.pixels, lut), d_out.download(), grader::kPoisonByte);
}

Counts cdf_of(const GrayImage& image) { return grader::cpu_exclusive_cdf(grader::cpu_gray_histogram(image.pixels)); }

// The adversarial images, named for the messages.
struct Case {
  std::string what;
  GrayImage image;
};
std::vector<Case> adversarial_images() {
  using namespace lab06_images;
  return {{"one pixel", filled(1, 1, 200)},
          {"one gray level", filled(64, 48, 77)},
          {"one gray level, black", filled(33, 7, 0)},
          {"two gray levels", two_levels(64, 64, 100, 101)},
          {"two gray levels, black and white", two_levels(31, 17, 0, 255)},
          {"the full range", full_range(256, 16)},
          {"low contrast", low_contrast(320, 241, 120, 40, seed())},
          {"noise", noise(129, 65, seed() + 1)}};
}
std::vector<Case> odd_shapes() {
  using namespace lab06_images;
  return {{"a single row", low_contrast(999, 1, 90, 30, seed() + 2)},
          {"a single column", low_contrast(1, 1001, 90, 30, seed() + 3)},
          {"odd width", low_contrast(37, 13, 60, 50, seed() + 4)},
          {"odd width", noise(333, 77, seed() + 5)},
          {"odd width", low_contrast(4097, 3, 200, 20, seed() + 6)}};
}
GrayImage large_image() {
  const int width = 4096;
  const int height = static_cast<int>(grader::scaled_size(std::size_t{4096} * 4096) / width);
  return lab06_images::low_contrast(width, height, 110, 60, seed() + 7);
}

// The real photograph, or a skip that says why there is none and how to get one.
const lab06_images::Found& real() {
  static const lab06_images::Found found = lab06_images::real_image();
  return found;
}
#define LAB06_REAL_IMAGE_OR_SKIP()                                    \
  if (!real().found) GTEST_SKIP() << real().reason;                   \
  std::printf("[ image    ] %s: %dx%d\n", real().name.c_str(), real().image.width, real().image.height)

// EXPECT_TRUE on a named result, so a failure reads "Value of: stage" and then what went wrong.
#define EXPECT_TRUE_STAGE(check)                             \
  do {                                                       \
    const ::testing::AssertionResult stage = (check);        \
    EXPECT_TRUE(stage);                                      \
  } while (0)

class Lab06Histogram : public grader::GpuTest {};
class Lab06Cdf : public grader::GpuTest {};
class Lab06Lut : public grader::GpuTest {};
class Lab06Remap : public grader::GpuTest {};
class Lab06Equalize : public grader::GpuTest {};

// ---- stage 1 ------------------------------------------------------------------------------------
GRADED_TEST(Lab06Histogram, MatchesCpuOnAdversarialImages, 2) {
  for (const Case& c : adversarial_images()) EXPECT_TRUE_STAGE(histogram_matches(c.what, c.image));
}
GRADED_TEST(Lab06Histogram, MatchesCpuOnOddWidths, 1) {
  for (const Case& c : odd_shapes()) EXPECT_TRUE_STAGE(histogram_matches(c.what, c.image));
}
GRADED_TEST(Lab06Histogram, MatchesCpuOnALargeImage, 1) {
  EXPECT_TRUE_STAGE(histogram_matches("large low-contrast image", large_image()));
}
GRADED_EDGE_TEST(Lab06Histogram, HandlesAnEmptyImage, 1) {
  EXPECT_TRUE_STAGE(histogram_matches("no pixels", {0, 0, {}}));
}
GRADED_TEST(Lab06Histogram, MatchesCpuOnTheRealImage, 1) {
  LAB06_REAL_IMAGE_OR_SKIP();
  EXPECT_TRUE_STAGE(histogram_matches(real().name, real().image));
}

// ---- stage 2 ------------------------------------------------------------------------------------
GRADED_TEST(Lab06Cdf, MatchesCpuOnTheHistogramsOfAdversarialImages, 2) {
  for (const Case& c : adversarial_images()) EXPECT_TRUE_STAGE(cdf_matches(c.what, grader::cpu_gray_histogram(c.image.pixels)));
}
GRADED_TEST(Lab06Cdf, MatchesCpuOnLargeCounts, 1) {
  // Two billion pixels in all: every partial sum still fits in 31 bits.
  Counts bins(lab06::kGrayLevels);
  grader::KeyedStream engine(seed() + 8);
  for (unsigned& b : bins) b = 7000000u + static_cast<unsigned>(engine() % 1000000u);
  EXPECT_TRUE_STAGE(cdf_matches("random counts near 7.5 million a level", bins));
}
GRADED_TEST(Lab06Cdf, PutsEveryPixelInTheLastEntryWhenOnlyTheBrightestLevelIsUsed, 1) {
  Counts bins(lab06::kGrayLevels, 0);
  bins[255] = 12345;
  EXPECT_TRUE_STAGE(cdf_matches("every pixel at level 255", bins));
}

// ---- stage 3 ------------------------------------------------------------------------------------
GRADED_TEST(Lab06Lut, MatchesCpuOnAdversarialImages, 2) {
  for (const Case& c : adversarial_images()) EXPECT_TRUE_STAGE(lut_matches(c.what, cdf_of(c.image)));
}
GRADED_TEST(Lab06Lut, RoundsHalvesUp, 1) {
  // c_min = 1 and N - c_min = 2: level 6 sits at 255 * 1/2 = 127.5, which rounds to 128.
  EXPECT_TRUE_STAGE(lut_matches("levels 5, 6, 7 once each", cdf_of({3, 1, {5, 6, 7}})));
  // c_min = 1 and N - c_min = 510, so level v goes to (c(v) - 1) / 2: every other level lands on
  // a half (1, 3, 1, 3, ... pixels a level make c(v) - 1 odd at every odd level).
  Counts bins(lab06::kGrayLevels, 0);
  bins[0] = 1;
  for (int v = 1; v < 255; ++v) bins[v] = v % 2 ? 1 : 3;
  bins[255] = 2;
  EXPECT_TRUE_STAGE(lut_matches("1, 3, 1, 3, ... pixels a level", grader::cpu_exclusive_cdf(bins)));
}
GRADED_TEST(Lab06Lut, StaysExactWhen255TimesThePixelCountOverflows32Bits, 1) {
  // 2^26 pixels: 255 * (c - c_min) reaches 1.7e10, past 2^32.
  Counts bins(lab06::kGrayLevels, 0);
  grader::KeyedStream engine(seed() + 9);
  unsigned left = 1u << 26;
  for (int v = 3; v < 250 && left > 0; v += 1 + static_cast<int>(engine() % 4)) {
    const unsigned count = std::min(left, static_cast<unsigned>(engine() % (1u << 20)) + 1);
    bins[v] = count;
    left -= count;
  }
  bins[251] += left;
  EXPECT_TRUE_STAGE(lut_matches("67 million pixels", grader::cpu_exclusive_cdf(bins)));
}
GRADED_TEST(Lab06Lut, MatchesCpuOnOddWidthsAndALargeImage, 1) {
  for (const Case& c : odd_shapes()) EXPECT_TRUE_STAGE(lut_matches(c.what, cdf_of(c.image)));
  EXPECT_TRUE_STAGE(lut_matches("large low-contrast image", cdf_of(large_image())));
}

// ---- stage 4 ------------------------------------------------------------------------------------
GRADED_TEST(Lab06Remap, MatchesCpuOnEverySizeFromOneToSeventy, 2) {
  const GrayImage source = lab06_images::noise(70, 1, seed() + 10);
  const Bytes lut = lab06_images::noise(256, 1, seed() + 11).pixels;
  for (std::size_t n = 1; n <= 70; ++n) {
    EXPECT_TRUE_STAGE(remap_matches(std::to_string(n) + " pixels", Bytes(source.pixels.begin(), source.pixels.begin() + n), lut));
  }
}
GRADED_TEST(Lab06Remap, MatchesCpuOnALargeImage, 1) {
  EXPECT_TRUE_STAGE(remap_matches("large low-contrast image", large_image().pixels, lab06_images::noise(256, 1, seed() + 12).pixels));
}
GRADED_EDGE_TEST(Lab06Remap, HandlesAnEmptyImage, 1) {
  EXPECT_TRUE_STAGE(remap_matches("no pixels", {}, Bytes(256, 1)));
}

// ---- the pipeline -------------------------------------------------------------------------------
GRADED_TEST(Lab06Equalize, MatchesCpuOnAdversarialImages, 3) {
  for (const Case& c : adversarial_images()) EXPECT_TRUE_STAGE(equalize_matches(c.what, c.image));
}
GRADED_TEST(Lab06Equalize, MatchesCpuOnOddWidths, 2) {
  for (const Case& c : odd_shapes()) EXPECT_TRUE_STAGE(equalize_matches(c.what, c.image));
}
GRADED_TEST(Lab06Equalize, MatchesCpuOnALargeImage, 1) {
  EXPECT_TRUE_STAGE(equalize_matches("large low-contrast image", large_image()));
}
GRADED_TEST(Lab06Equalize, MatchesCpuOnTheRealImage, 2) {
  LAB06_REAL_IMAGE_OR_SKIP();
  EXPECT_TRUE_STAGE(equalize_matches(real().name, real().image));
}
GRADED_TEST(Lab06Equalize, LeavesAnImageOfOneGrayLevelUnchanged, 1) {
  const GrayImage image = lab06_images::filled(40, 30, 133);
  EXPECT_TRUE_STAGE(equalize_matches("one gray level", image));
}

// ---- speed --------------------------------------------------------------------------------------
class Lab06Speed : public grader::SpeedTest {};

GRADED_HEADLINE_SPEED_TEST(Lab06Speed, EqualizationTakesAtMostTwentyCopiesOfTheImage, 2, 0,
                           "equalize, 4 stages") {
  // 64 Mpixels, low contrast: neighbouring pixels share levels, as in a photograph, so the
  // histogram's atomics collide as they would on a real picture.
  const GrayImage image = lab06_images::low_contrast(8192, 8192, 110, 60, seed() + 13);
  const ::testing::AssertionResult stage = equalize_matches("8192x8192 low-contrast image", image);
  ASSERT_TRUE(stage);
  const std::size_t n = image.pixels.size();
  grader::DeviceBuffer<std::uint8_t> d_in(image.pixels), d_out(n);
  grader::DeviceBuffer<unsigned> d_bins(lab06::kGrayLevels), d_cdf(lab06::kCdfEntries);
  grader::DeviceBuffer<std::uint8_t> d_lut(lab06::kGrayLevels);
  grader::Measurement m;
  m.bytes = 2.0 * n;
  const grader::TimedWork<std::uint8_t, std::uint8_t> work{
      "equalize, 8192x8192", d_in.data(), n, n,
      [&](const std::uint8_t* in, std::uint8_t* out) {
        lab06::equalize(in, image.width, image.height, out, {d_bins.data(), d_cdf.data(), d_lut.data()});
      },
      [n](const std::uint8_t* in, const std::uint8_t* out) {
        return grader::equalization_matches_reference(in, n, out);
      }};
  ASSERT_TRUE(grader::time_rounds(grader::student_runner(), work, m.time_ms));
  const grader::Measurement& copy =
      grader::copy_yardstick(reinterpret_cast<const int*>(d_in.data()), n / sizeof(int));
  // Equalizing reads the image and writes it once, as a copy does: faster is no measurement.
  const std::string implausible = grader::implausible_speed("equalize, 8192x8192", m, copy, "device copy");
  ASSERT_TRUE(implausible.empty()) << implausible;
  const double copies = m.time_ms.median / copy.time_ms.median;
  std::printf("[ speed    ] equalize, 8192x8192: %.4g ms (spread %.1f%%) = %.2f copies of the image "
              "(a copy: %.4g ms, %.0f GB/s)\n", m.time_ms.median, 100 * m.time_ms.relative_spread(), copies,
              copy.time_ms.median, copy.gbps());
  grader::record_metric("time_ms", m.time_ms.median);
  grader::record_metric("gbps", m.gbps());
  grader::record_metric("percent_of_copy_bw", 100 * copy.time_ms.median / m.time_ms.median);
  grader::record_metric("copies_of_the_image", copies);
  grader::record_tier("pass", copies <= kMaxCopiesOfTheImage,
                      std::to_string(copies) + " copies of the image; at most " + std::to_string(kMaxCopiesOfTheImage));
  EXPECT_LE(copies, kMaxCopiesOfTheImage)
      << "equalize takes as long as " << copies << " copies of the image. Count each pixel into shared-memory "
      << "bins, not global ones (question 2.1), and read the table from shared memory (question 5.1).";
}

}  // namespace
