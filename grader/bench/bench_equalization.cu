// The benchmark's equalization group: lab 06 on a 16384 x 8192 image of the byte group's bytes,
// the references of grader/bench/references/equalization*.cu: v1's small stages, its remap and its
// four stages in a row, v2's remap and its two launches, v3's and v4's one launch, next to the
// grader's device copy.
#include <cstdint>
#include <string>
#include <vector>

#include "grader/bench/bench_harness.cuh"
#include "grader/bench/references/references.cuh"
#include "grader/core/equalization_reference.hpp"

namespace bench {

namespace ref = bench::reference;

// The workspace of one pipeline, v2's scratch zeroed as it asks.
struct EqualizationBuffers {
  grader::DeviceBuffer<unsigned> d_bins{ref::kGrayLevels}, d_cdf{ref::kCdfEntries};
  grader::DeviceBuffer<std::uint8_t> d_lut{ref::kGrayLevels};
  grader::DeviceBuffer<unsigned> d_scratch{std::vector<unsigned>(ref::kGrayLevels + 1, 0u)};
  ref::Workspace workspace() { return {d_bins.data(), d_cdf.data(), d_lut.data(), d_scratch.data()}; }
};

void bench_equalization(Bench& b, Distribution dist, const std::vector<unsigned char>& bytes,
                        const grader::DeviceBuffer<unsigned char>& d_bytes) {
  const std::string eq = "equalization (lab06)";
  const std::string name = distribution_name(dist, true);
  const int n = static_cast<int>(bytes.size());
  const unsigned char* in = d_bytes.data();

  // Edge cases of the whole pipelines, on a workspace of their own: v1's verdict stands for its
  // stages (cdf, table, remap), v2's for its remap too.
  EqualizationBuffers edge_buffers;
  const ref::Workspace edge_workspace = edge_buffers.workspace();
  auto edges = [&](const std::string& kernel, void (*equalize)(const std::uint8_t*, int, std::uint8_t*,
                                                               ref::Workspace)) {
    return b.edges(kernel, [&] {
      const EdgeSuite<unsigned char, unsigned char> suite(0, 255, 255, grader::cpu_equalize);
      return suite.first_failure([&](const unsigned char* i, int k, unsigned char* o) {
        equalize(i, k, o, edge_workspace);
      }, true);
    });
  };
  const std::string edge_v1 = edges("lab06 equalize (4 stages)", ref::equalize_v1);
  const std::string edge_v2 = edges("equalize v2 (2 launches)", ref::equalize_v2);
  const std::string edge_v3 = edges("equalize v3 (1 cooperative launch)", ref::equalize_v3);
  const std::string edge_v4 = edges("equalize v4 (registers too)", ref::equalize_v4);

  const std::vector<unsigned> histogram = grader::cpu_gray_histogram(bytes);
  const std::vector<unsigned> cdf = grader::cpu_exclusive_cdf(histogram);
  const std::vector<std::uint8_t> lut = grader::cpu_equalization_lut(cdf);
  EqualizationBuffers buffers;
  buffers.d_bins.upload(histogram);
  grader::DeviceBuffer<std::uint8_t> d_out(bytes.size());
  Yardsticks none;
  b.measure(eq, "lab06 cdf_exclusive_scan", "one block", name, 4.0 * ref::kGrayLevels, cdf,
            buffers.d_cdf, [&] { ref::cdf_v1(buffers.d_bins.data(), buffers.d_cdf.data()); }, none,
            false, edge_v1);
  buffers.d_cdf.upload(cdf);
  b.measure(eq, "lab06 build_lut", "one block", name, 4.0 * ref::kCdfEntries, lut, buffers.d_lut,
            [&] { ref::lut_v1(buffers.d_cdf.data(), buffers.d_lut.data()); }, none, false, edge_v1);
  buffers.d_lut.upload(lut);
  grader::DeviceBuffer<int> d_copy(bytes.size() / 4);  // the image is whole 4-byte words
  const Yardsticks copy_y = b.copy_yardstick(eq, name, reinterpret_cast<const int*>(in), d_copy.data(),
                                             bytes.size() / 4);
  const std::vector<std::uint8_t> remapped = grader::cpu_remap(bytes, lut);
  const ref::Workspace workspace = buffers.workspace();
  const std::string image = std::to_string(kImageWidth) + " x " + std::to_string(n / kImageWidth);
  b.measure(eq, "lab06 remap", "its own", name, 2.0 * n, remapped, d_out,
            [&] { ref::remap_v1(in, n, buffers.d_lut.data(), d_out.data()); }, copy_y, false, edge_v1);
  // The whole pipelines' traffic: the image read twice and written once, less what v3 and v4 hold.
  const double twice_and_once = 3.0 * n;
  b.measure(eq, "lab06 equalize (4 stages)", image, name, 2.0 * n, remapped, d_out,
            [&] { ref::equalize_v1(in, n, d_out.data(), workspace); }, copy_y, false, edge_v1)
      .traffic_bytes = twice_and_once;
  b.measure(eq, "equalize v2 remap", "2 blocks of 1024 per SM", name, 2.0 * n, remapped, d_out,
            [&] { ref::remap_v2(in, n, buffers.d_lut.data(), d_out.data()); }, copy_y, false, edge_v2);
  b.measure(eq, "equalize v2 (2 launches)", image, name, 2.0 * n, remapped, d_out,
            [&] { ref::equalize_v2(in, n, d_out.data(), workspace); }, copy_y, false, edge_v2)
      .traffic_bytes = twice_and_once;
  const auto held = [](const ref::FusedLaunch& f) {
    std::string text = std::to_string(f.blocks) + " blocks of 1024, " + std::to_string(f.held_vectors / 64) +
                       " KiB of the image held by each";
    if (f.vectors_in_registers > 0) text += " and " + std::to_string(16 * f.vectors_in_registers) + " B by each thread";
    return text;
  };
  const ref::FusedLaunch& v3 = ref::equalize_v3_launch();
  const ref::FusedLaunch& v4 = ref::equalize_v4_launch();
  b.measure(eq, "equalize v3 (1 cooperative launch)", held(v3), name, 2.0 * n, remapped, d_out,
            [&] { ref::equalize_v3(in, n, d_out.data(), workspace); }, copy_y, false, edge_v3)
      .traffic_bytes = twice_and_once - static_cast<double>(ref::fused_held_bytes(v3, n));
  b.measure(eq, "equalize v4 (registers too)", held(v4), name, 2.0 * n, remapped, d_out,
            [&] { ref::equalize_v4(in, n, d_out.data(), workspace); }, copy_y, false, edge_v4)
      .traffic_bytes = twice_and_once - static_cast<double>(ref::fused_held_bytes(v4, n));
}

}  // namespace bench
