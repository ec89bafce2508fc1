// The benchmark's scan group: lab 05's versions on 2^25 int32, next to CUB's InclusiveSum and the
// grader's read and copy.
#include <string>
#include <vector>

#include "grader/bench/bench_harness.cuh"
#include "grader/bench/cub_wrappers.cuh"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/scan_reference.hpp"
#include "grader/core/scan_yardsticks.cuh"
#include "grader/core/yardsticks.cuh"
#include "lab05_scan_warps.cuh"

namespace bench {

// ---- Scans of 2^25 int32: lab 05 ---------------------------------------------------------------
void bench_scans(Bench& b) {
  const std::string group = "scan (int32)";
  const std::string name = "uniform [-1000, 1000]";
  const std::vector<int> values = grader::uniform_values(kIntSamples, -1000, 1000, 5);
  const int n = static_cast<int>(values.size());
  grader::DeviceBuffer<int> d_in(values), d_out(values.size());
  grader::DeviceBuffer<unsigned char> d_work(lab05::scan_workspace_bytes(n));
  const int* in = d_in.data();
  int* out = d_out.data();
  const double bytes = 8.0 * n;
  const std::vector<int> whole = grader::cpu_inclusive_scan(values);

  Yardsticks y;
  const grader::Measurement read = grader::measure_read_bandwidth(in, values.size());
  const grader::Measurement copy = grader::measure_copy_bandwidth(in, out, values.size());
  y.copy_ms = copy.time_ms.median;
  b.yardstick(group, "grader streaming read", name, read, Yardsticks{});
  b.yardstick(group, "grader device copy", name, copy, y);
  CubInclusiveSum cub(in, out, n);
  const Row& cub_row = b.measure(group, "CUB DeviceScan::InclusiveSum", "CUB's own", name, bytes,
                                 whole, d_out, [&] { cub(); }, y, true);
  y.cub_ms = cub_row.time.median;

  const lab05::BlockScanLaunch tile{lab05::kMaxTile};
  const std::vector<int> tiles = grader::cpu_inclusive_scan(values, lab05::kMaxTile);
  const std::string tile_shape = lab05::describe(tile) + " (block-local)";
  b.measure(group, "lab05 v1 Hillis-Steele", tile_shape, name, bytes, tiles, d_out,
            [&] { lab05::scan_v1_hillis_steele(in, n, out, tile); }, y);
  b.measure(group, "lab05 v2 Blelloch", tile_shape, name, bytes, tiles, d_out,
            [&] { lab05::scan_v2_blelloch(in, n, out, tile); }, y);
  b.measure(group, "lab05 v3 Blelloch padded", tile_shape, name, bytes, tiles, d_out,
            [&] { lab05::scan_v3_blelloch_padded(in, n, out, tile); }, y);
  b.measure(group, "lab05 v4 warp shuffle", tile_shape, name, bytes, tiles, d_out,
            [&] { lab05::scan_v4_warp_shuffle(in, n, out, tile); }, y);
  const auto l05 = lab05::fastest_multi_block_launch();
  b.measure(group, "lab05 v5 multi-block", lab05::describe(l05) + " (whole array)", name, bytes,
            whole, d_out, [&] { lab05::scan_v5_multi_block(in, n, out, d_work.data(), l05); }, y);
  b.measure(group, "lab05 v6 single pass", "its own (whole array)", name, bytes, whole, d_out,
            [&] { lab05::scan_v6_single_pass(in, n, out, d_work.data()); }, y);
}

}  // namespace bench
