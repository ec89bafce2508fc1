// Handout questions 2.4, 4.3 and 5.2: time every scan of the graded submission on 2^25 int32, for
// every tile and block size, next to a device copy and CUB's InclusiveSum, and print the table.
// Every row is checked against the CPU first. --csv=FILE also writes the table as CSV for
// grader/bench/plot_sweeps.py.
//   meson compile -C build lab05-sweep     or     build/labs/lab05_sweep [--csv=FILE]
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "grader/core/compare.hpp"
#include "grader/core/device.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/run_options.hpp"
#include "grader/core/scan_reference.hpp"
#include "grader/core/scan_yardsticks.cuh"
#include "grader/core/sweep_csv.hpp"
#include "grader/core/sweep_main.cuh"
#include "grader/core/timing.cuh"
#include "lab05_scan_warps.cuh"

namespace {

constexpr std::size_t kElements = std::size_t{1} << 25;

struct Row {
  std::string version;
  std::string shape;
  std::size_t segment;  // 0: whole array
  int block_size;       // elements per block (v1-v4), threads per block (v5); 0: the kernel's own
  std::function<void(const int*, int, int*, void*)> run;
};

std::vector<Row> rows() {
  std::vector<Row> all;
  for (int tile : lab05::kTileSizes) {
    const lab05::BlockScanLaunch l{tile};
    const std::string shape = lab05::describe(l);
    const auto t = static_cast<std::size_t>(tile);
    all.push_back({"v1 Hillis-Steele", shape, t, tile, [l](const int* i, int n, int* o, void*) { lab05::scan_v1_hillis_steele(i, n, o, l); }});
    all.push_back({"v2 Blelloch", shape, t, tile, [l](const int* i, int n, int* o, void*) { lab05::scan_v2_blelloch(i, n, o, l); }});
    all.push_back({"v3 Blelloch padded", shape, t, tile, [l](const int* i, int n, int* o, void*) { lab05::scan_v3_blelloch_padded(i, n, o, l); }});
    all.push_back({"v4 warp shuffle", shape, t, tile, [l](const int* i, int n, int* o, void*) { lab05::scan_v4_warp_shuffle(i, n, o, l); }});
  }
  for (int threads : lab05::kWholeArrayBlockSizes) {
    const lab05::WholeArrayLaunch l{threads};
    all.push_back({"v5 multi-block", lab05::describe(l), 0, threads,
                   [l](const int* i, int n, int* o, void* w) { lab05::scan_v5_multi_block(i, n, o, w, l); }});
  }
  all.push_back({"v6 single pass", "its own", 0, 0, lab05::scan_v6_single_pass});
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  grader::SweepCsv csv(argc, argv);
  return grader::run_sweep(argc, argv, [&](const grader::DeviceStatus& device) {
    const std::vector<int> values = grader::uniform_values(kElements, -1000, 1000, 5);
    const int n = static_cast<int>(kElements);
    grader::DeviceBuffer<int> d_in(values), d_out(kElements);
    grader::DeviceBuffer<unsigned char> d_work(lab05::scan_workspace_bytes(n));
    const grader::Measurement copy = grader::measure_copy_bandwidth(d_in.data(), d_out.data(), kElements);
    const grader::Measurement cub = grader::measure_cub_inclusive_sum(d_in.data(), d_out.data(), kElements);
    std::printf("Lab 05 sweep on %s, %zu int32 (times: medians of 20, L2 flushed)\n",
                device.description.c_str(), kElements);
    std::printf("%-20s %-18s %10s %9s %8s %8s  %s\n", "version", "shape", "time (ms)", "GB/s",
                "% copy", "% CUB", "result");
    csv.begin("05", "Lab 05 sweep", device.description);
    csv.plot("block_size", "block size: elements per block (v1-v4), threads per block (v5)", "gbps",
             "GB/s (bytes read + written / time)", "version");
    csv.meta("note", "a row without a block size (v6: its own launch) is drawn as a level line");
    csv.reference("device copy", copy.gbps());
    csv.reference("CUB InclusiveSum", cub.gbps());
    csv.row({"version", "shape", "block_size", "time_ms", "gbps", "pct_copy", "pct_cub", "result"});
    auto line = [&](const char* version, const std::string& shape, const grader::Measurement& m,
                    const char* result) {
      std::printf("%-20s %-18s %10.4f %9.0f %8.1f %8.1f  %s\n", version, shape.c_str(), m.time_ms.median,
                  m.gbps(), 100 * copy.time_ms.median / m.time_ms.median,
                  100 * cub.time_ms.median / m.time_ms.median, result);
    };
    line("device copy", "cudaMemcpyAsync", copy, "-");
    line("CUB InclusiveSum", "CUB's own", cub, "-");
    const std::vector<int> whole = grader::cpu_inclusive_scan(values);
    std::vector<int> tiles;
    std::size_t tiles_segment = 0;
    for (const Row& row : rows()) {
      const std::vector<int>* expected = &whole;
      if (row.segment != 0) {
        if (tiles_segment != row.segment) tiles = grader::cpu_inclusive_scan(values, row.segment);
        tiles_segment = row.segment;
        expected = &tiles;
      }
      auto run = [&] { row.run(d_in.data(), n, d_out.data(), d_work.data()); };
      d_out.fill_poison();
      run();
      grader::check_kernel_ran(row.version, row.shape);
      const bool correct = grader::compare_exact(*expected, d_out.download(),
                                                 static_cast<int>(grader::kPoisonWord)).matches();
      grader::Measurement m;
      m.bytes = 2.0 * kElements * sizeof(int);
      m.time_ms = grader::time_gpu_ms(run);
      line(row.version.c_str(), row.shape, m, correct ? "correct" : "WRONG");
      csv.row({row.version, row.shape, row.block_size ? csv.number(row.block_size) : "",
               csv.number(m.time_ms.median, 4), csv.number(m.gbps(), 0),
               csv.number(100 * copy.time_ms.median / m.time_ms.median, 1),
               csv.number(100 * cub.time_ms.median / m.time_ms.median, 1), correct ? "correct" : "WRONG"});
    }
  });
}
