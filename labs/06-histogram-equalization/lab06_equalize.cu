// Handout question 6.2: equalize a photograph with your pipeline and look at the result.
//   meson compile -C build lab06-equalize                              (the sample photograph)
//   LAB06_IMAGE=~/photo.png meson compile -C build lab06-equalize      (yours: PGM or PNG)
// Writes, under build/lab06-images/ (or LAB06_OUTPUT): NAME-before.png, NAME-after.png,
// NAME-before-after.png (side by side), NAME-histograms.png (before on top, after below: bars are
// the histogram, the red line the CDF) and NAME-equalized.pgm. Checks the result against the CPU
// reference and, on a GPU, prints the time of each stage.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/equalization_reference.hpp"
#include "grader/core/image_io.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/timing.cuh"
#include "lab06_histogram_equalization.cuh"
#include "lab06_images.hpp"

namespace {

constexpr int kChartHeight = 200;
constexpr int kBarWidth = 2;
constexpr int kMargin = 8;

void set(grader::RgbImage& image, int x, int y, std::uint8_t r, std::uint8_t g, std::uint8_t b) {
  if (x < 0 || y < 0 || x >= image.width || y >= image.height) return;
  std::uint8_t* p = &image.rgb[3 * (std::size_t(y) * image.width + x)];
  p[0] = r, p[1] = g, p[2] = b;
}

// One panel: the 256 bins as gray bars scaled to the tallest, the CDF as a red line scaled to N.
void draw_panel(grader::RgbImage& chart, int top, const std::vector<unsigned>& bins) {
  const unsigned tallest = std::max(1u, *std::max_element(bins.begin(), bins.end()));
  unsigned long long total = 0;
  for (unsigned b : bins) total += b;
  const int bottom = top + kChartHeight - 1;
  for (int x = kMargin - 1; x <= kMargin + 256 * kBarWidth; ++x) set(chart, x, bottom + 1, 0, 0, 0);
  unsigned long long running = 0;
  int previous_y = bottom;
  for (int v = 0; v < 256; ++v) {
    const int height = static_cast<int>((static_cast<unsigned long long>(bins[v]) * (kChartHeight - 1)) / tallest);
    for (int dx = 0; dx < kBarWidth; ++dx) {
      for (int y = bottom - height; y <= bottom; ++y) set(chart, kMargin + v * kBarWidth + dx, y, 90, 90, 90);
    }
    running += bins[v];
    const int cdf_y = bottom - static_cast<int>(total ? running * (kChartHeight - 1) / total : 0);
    for (int y = std::min(previous_y, cdf_y); y <= std::max(previous_y, cdf_y); ++y) {
      set(chart, kMargin + v * kBarWidth, y, 220, 30, 30);
    }
    set(chart, kMargin + v * kBarWidth + 1, cdf_y, 220, 30, 30);
    previous_y = cdf_y;
  }
}

grader::RgbImage histogram_chart(const std::vector<unsigned>& before, const std::vector<unsigned>& after) {
  grader::RgbImage chart;
  chart.width = 256 * kBarWidth + 2 * kMargin;
  chart.height = 2 * kChartHeight + 3 * kMargin;
  chart.rgb.assign(std::size_t(chart.width) * chart.height * 3, 255);
  draw_panel(chart, kMargin, before);
  draw_panel(chart, 2 * kMargin + kChartHeight, after);
  return chart;
}

grader::GrayImage side_by_side(const grader::GrayImage& left, const grader::GrayImage& right) {
  const int gap = 8;
  grader::GrayImage both{left.width + gap + right.width, std::max(left.height, right.height), {}};
  both.pixels.assign(std::size_t(both.width) * both.height, 255);
  for (int y = 0; y < left.height; ++y) {
    std::copy_n(&left.pixels[std::size_t(y) * left.width], left.width, &both.pixels[std::size_t(y) * both.width]);
    std::copy_n(&right.pixels[std::size_t(y) * right.width], right.width,
                &both.pixels[std::size_t(y) * both.width + left.width + gap]);
  }
  return both;
}

std::string stem(const std::string& path) {
  const std::string name = std::filesystem::path(path).stem().string();
  return name.empty() ? "image" : name;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    grader::parse_tool_options(argc, argv);
    const grader::DeviceStatus& device = grader::device_status();
    if (!device.available) {
      std::fprintf(stderr, "error: %s\n", device.reason.c_str());
      return 2;
    }
    const lab06_images::Found found = lab06_images::real_image();
    if (!found.found) {
      std::fprintf(stderr, "error: %s (if you have not built yet, run `meson compile -C build` first)\n",
                   found.reason.c_str());
      return 2;
    }
    const grader::GrayImage& image = found.image;
    const char* output_env = std::getenv("LAB06_OUTPUT");
    const std::string folder = output_env && output_env[0] ? output_env : lab06_config::kOutputFolder;
    std::filesystem::create_directories(folder);

    grader::DeviceBuffer<std::uint8_t> d_in(image.pixels), d_out(image.pixels.size());
    grader::DeviceBuffer<unsigned> d_bins(lab06::kGrayLevels), d_cdf(lab06::kCdfEntries);
    grader::DeviceBuffer<std::uint8_t> d_lut(lab06::kGrayLevels);
    const lab06::Workspace workspace{d_bins.data(), d_cdf.data(), d_lut.data()};
    lab06::equalize(d_in.data(), image.width, image.height, d_out.data(), workspace);
    grader::check_kernel_ran("equalize", "the pipeline");
    const grader::GrayImage after{image.width, image.height, d_out.download()};
    const bool correct = after.pixels == grader::cpu_equalize(image.pixels);

    const std::vector<unsigned> before_bins = grader::cpu_gray_histogram(image.pixels);
    const std::vector<unsigned> after_bins = grader::cpu_gray_histogram(after.pixels);
    const auto used = [](const std::vector<unsigned>& bins) {
      return std::count_if(bins.begin(), bins.end(), [](unsigned b) { return b != 0; });
    };
    const auto [lo, hi] = std::minmax_element(image.pixels.begin(), image.pixels.end());
    const auto [lo2, hi2] = std::minmax_element(after.pixels.begin(), after.pixels.end());
    std::printf("Lab 06 equalize on %s\n", device.description.c_str());
    std::printf("image: %s, %dx%d\n", found.name.c_str(), image.width, image.height);
    std::printf("before: levels %d..%d, %ld levels used\n", *lo, *hi, static_cast<long>(used(before_bins)));
    std::printf("after:  levels %d..%d, %ld levels used\n", *lo2, *hi2, static_cast<long>(used(after_bins)));
    std::printf("result: %s\n", correct ? "matches the CPU reference" : "DIFFERS from the CPU reference");

    const std::string base = folder + "/" + stem(found.name);
    grader::write_png(base + "-before.png", image);
    grader::write_png(base + "-after.png", after);
    grader::write_png(base + "-before-after.png", side_by_side(image, after));
    grader::write_png(base + "-histograms.png", histogram_chart(before_bins, after_bins));
    grader::write_pgm(base + "-equalized.pgm", after);
    std::printf("wrote %s-{before,after,before-after,histograms}.png and %s-equalized.pgm\n", base.c_str(),
                base.c_str());

    if (!grader::kCpuBackend) {
      const int n = static_cast<int>(image.pixels.size());
      const lab06::HistogramLaunch launch = lab06::fastest_histogram_launch(device.properties.multiProcessorCount);
      const grader::TimingOptions timing{3, 20, true};
      const double t_hist = grader::time_gpu_ms([&] { lab06::histogram_256(d_in.data(), n, d_bins.data(), launch); }, timing).median;
      const double t_cdf = grader::time_gpu_ms([&] { lab06::cdf_exclusive_scan(d_bins.data(), d_cdf.data()); }, timing).median;
      const double t_lut = grader::time_gpu_ms([&] { lab06::build_lut(d_cdf.data(), d_lut.data()); }, timing).median;
      const double t_remap = grader::time_gpu_ms([&] { lab06::remap(d_in.data(), n, d_lut.data(), d_out.data()); }, timing).median;
      const double t_all = grader::time_gpu_ms([&] {
        lab06::equalize(d_in.data(), image.width, image.height, d_out.data(), workspace);
      }, timing).median;
      std::printf("stage times (ms, medians of 20, L2 flushed): histogram %.4f, CDF %.4f, table %.4f, "
                  "remap %.4f; whole pipeline %.4f\n", t_hist, t_cdf, t_lut, t_remap, t_all);
    }
    return correct ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
