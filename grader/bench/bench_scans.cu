// The benchmark's scan group: the scan references of grader/bench/references/ (lab 05's v1 to v6,
// then v7 to v11) on 2^25 int32, next to CUB's InclusiveSum and the grader's read and copy. Rows
// keep the names of the lab versions they reproduce.
#include <optional>
#include <string>
#include <vector>

#include "grader/bench/bench_harness.cuh"
#include "grader/bench/cub_wrappers.cuh"
#include "grader/bench/references/references.cuh"
#include "grader/core/cpu_reference.hpp"
#include "grader/core/scan_reference.hpp"
#include "grader/core/scan_yardsticks.cuh"
#include "grader/core/yardsticks.cuh"

namespace bench {

namespace ref = bench::reference;

// ---- Scans of 2^25 int32: lab 05 ---------------------------------------------------------------
void bench_scans(Bench& b) {
  const std::string group = "scan (int32)";
  const std::string name = "uniform [-1000, 1000]";
  const std::vector<int> values = grader::uniform_values(kIntSamples, -1000, 1000, 5);
  const int n = static_cast<int>(values.size());
  grader::DeviceBuffer<int> d_in(values), d_out(values.size());
  grader::DeviceBuffer<unsigned char> d_work(ref::scan_workspace_bytes(n));  // also the edge cases'
  const int* in = d_in.data();
  int* out = d_out.data();
  void* work = d_work.data();
  const double bytes = 8.0 * n;
  const std::vector<int> whole = grader::cpu_inclusive_scan(values);

  const grader::Measurement read = grader::measure_read_bandwidth(in, values.size());
  b.yardstick(group, "grader streaming read", name, read, Yardsticks{});
  Yardsticks y = b.copy_yardstick(group, name, in, out, values.size());
  CubInclusiveSum cub(in, out, n);
  const Row& cub_row = b.measure(group, "CUB DeviceScan::InclusiveSum", "CUB's own", name, bytes,
                                 whole, d_out, [&] { cub(); }, y, true);
  y.cub_ms = cub_row.time.median;
  y.cub = [&] { cub(); };

  struct Version {
    std::string kernel, launch;
    bool whole_array;
    EdgeRun<int, int> run;
  };
  const int tile = ref::kMaxTile;
  const std::string tile_shape = std::to_string(tile) + " elements/block (block-local)";
  const int threads = ref::kMultiBlockThreads;
  const Version versions[] = {
      {"lab05 v1 Hillis-Steele", tile_shape, false,
       [=](const int* i, int k, int* o) { ref::scan_v1_hillis_steele(i, k, o, tile); }},
      {"lab05 v2 Blelloch", tile_shape, false,
       [=](const int* i, int k, int* o) { ref::scan_v2_blelloch(i, k, o, tile); }},
      {"lab05 v3 Blelloch padded", tile_shape, false,
       [=](const int* i, int k, int* o) { ref::scan_v3_blelloch_padded(i, k, o, tile); }},
      {"lab05 v4 warp shuffle", tile_shape, false,
       [=](const int* i, int k, int* o) { ref::scan_v4_warp_shuffle(i, k, o, tile); }},
      {"lab05 v5 multi-block", std::to_string(threads) + " threads/block (whole array)", true,
       [=](const int* i, int k, int* o) { ref::scan_v5_multi_block(i, k, o, work, threads); }},
      {"lab05 v6 single pass", "its own (whole array)", true,
       [=](const int* i, int k, int* o) { ref::scan_v6_single_pass(i, k, o, work); }},
      {"scan v7 wide rows", "128 threads x 48 elements (whole array)", true,
       [=](const int* i, int k, int* o) { ref::scan_v7_wide_rows(i, k, o, work); }},
      {"scan v8 tagged states", "128 threads x 48 elements (whole array)", true,
       [=](const int* i, int k, int* o) { ref::scan_v8_tagged(i, k, o); }},
      {"scan v9 launch order", "128 threads x 48 elements (whole array)", true,
       [=](const int* i, int k, int* o) { ref::scan_v9_launch_order(i, k, o); }},
      {"scan v10 wide tiles", "128 threads x 64 elements (whole array)", true,
       [=](const int* i, int k, int* o) { ref::scan_v10_wide_tiles(i, k, o); }},
      {"scan v11 split tile", "128 threads x 2 x 64 elements (whole array)", true,
       [=](const int* i, int k, int* o) { ref::scan_v11_split_tile(i, k, o); }}};
  const std::vector<int> tiles = grader::cpu_inclusive_scan(values, tile);
  // All equal to 200: large, yet its sums over the 10000019-element case stay within int32 (lab
  // 05's inputs never overflow, so neither do these).
  std::optional<EdgeSuite<int, int>> tile_suite, whole_suite;
  for (const Version& v : versions) {
    const std::string& edge = b.edges(v.kernel, [&] {
      std::optional<EdgeSuite<int, int>>& suite = v.whole_array ? whole_suite : tile_suite;
      if (!suite) {
        const std::size_t segment = v.whole_array ? 0 : tile;
        suite.emplace(-1000, 1000, 200, [segment](const std::vector<int>& x) {
          return grader::cpu_inclusive_scan(x, segment);
        });
      }
      // v1 to v4 take any pointer; v5 to v11 read int4 (lab 05's interface promises cudaMalloc's).
      return suite->first_failure(v.run, !v.whole_array);
    });
    b.measure(group, v.kernel, v.launch, name, bytes, v.whole_array ? whole : tiles, d_out,
              [&] { v.run(in, n, out); }, y, false, edge);
  }
}

}  // namespace bench
