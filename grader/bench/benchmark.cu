// The workbook's benchmark: the benchmark's own reference kernels (grader/bench/references/: every
// lab's versions, then the faster ones the labs stop short of), timed on the GPU at hand next to
// CUB and the grader's yardsticks (streaming read, device copy, global-atomics baseline), on
// uniform, normal(500, 30) and all-equal data. Every kernel is first checked against the CPU on
// small edge cases (bench_harness.cuh), then once on the timed input; a wrong one is reported WRONG
// and not timed. The groups live in bench_*.cu; this file runs them and writes the report.
//   meson compile -C build bench      or      build/grader/bench/kernel_benchmark --out DIR
// Options: --out DIR (writes benchmark.txt, .json, .csv), --runs N (timed runs, at least 20),
//          --only TEXT (only the groups whose name contains TEXT, e.g. --only scan; the letters and
//          equalization bring the byte histograms, whose input they share),
//          --list (print the groups the other options select, and stop: no GPU needed),
//          --profile (each kernel once, untimed, between cudaProfilerStart and Stop: for ncu, through
//          profile_references.py).
#include <cctype>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "grader/bench/bench_harness.cuh"
#include "grader/bench/machine.cuh"
#include "grader/core/cuda_check.cuh"

namespace bench {
namespace {


// The groups, each with those timed with it: the letters and equalization run on the bytes' input.
const std::vector<std::vector<std::string>> kGroups = {
    {"1024-bin histogram"}, {"4096-bin histogram"},
    {"256-bin byte histogram", "7-bin letter histogram", "equalization (lab06)"}, {"scan (int32)"}};

// Whether --only picks the group whose first name is `group` (or one timed with it).
bool selected(const Options& o, const std::string& group) {
  for (const std::vector<std::string>& names : kGroups) {
    if (names.front() != group) continue;
    for (const std::string& name : names) {
      if (o.only.empty() || name.find(o.only) != std::string::npos) return true;
    }
  }
  return false;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const std::string& flag) -> std::string {
      if (arg.rfind(flag + "=", 0) == 0) return arg.substr(flag.size() + 1);
      if (arg == flag && i + 1 < argc) return argv[++i];
      throw std::runtime_error(flag + " needs a value");
    };
    if (arg.rfind("--out", 0) == 0) {
      o.out_dir = value("--out");
    } else if (arg.rfind("--runs", 0) == 0) {
      o.runs = std::stoi(value("--runs"));
      if (o.runs < 20) throw std::runtime_error("--runs: at least 20 timed runs");
    } else if (arg.rfind("--only", 0) == 0) {
      o.only = value("--only");
      bool any = false;
      std::string names;
      for (const std::vector<std::string>& group : kGroups) {
        any = any || selected(o, group.front());
        for (const std::string& name : group) names += (names.empty() ? "" : ", ") + name;
      }
      if (!any) throw std::runtime_error("--only " + o.only + " matches no group; the groups: " + names);
    } else if (arg == "--profile") {
      o.profile = true;
    } else if (arg == "--list") {
      o.list = true;
    } else if (arg.rfind("--data", 0) == 0) {
      // The run target passes the standard data file like every tool's; inputs are generated here.
      if (arg == "--data") ++i;
    } else {
      throw std::runtime_error("unknown option " + arg +
                               " (options: --out DIR, --runs N, --only TEXT, --list, --profile)");
    }
  }
  return o;
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  try {
    const bench::Options options = bench::parse(argc, argv);
    if (options.list) {
      for (const std::vector<std::string>& group : bench::kGroups) {
        if (!bench::selected(options, group.front())) continue;
        for (const std::string& name : group) std::printf("%s\n", name.c_str());
      }
      return 0;
    }
    const grader::DeviceStatus& device = grader::device_status();
    if (!device.available) {
      std::fprintf(stderr, "error: %s\n", device.reason.c_str());
      return 2;
    }
    bench::Bench b(options);
    const bench::Header header = bench::describe_machine(device.description, options.runs, b.clocks().read());
    std::printf("%s\n%s\n", header.text().c_str(), bench::table_heading().c_str());
    for (bench::Distribution d : bench::kDistributions) {
      if (bench::selected(options, "1024-bin histogram")) bench::bench_1024_bins(b, d);
      if (bench::selected(options, "4096-bin histogram")) bench::bench_4096_bins(b, d);
      if (bench::selected(options, "256-bin byte histogram")) bench::bench_bytes(b, d);
    }
    if (bench::selected(options, "scan (int32)")) bench::bench_scans(b);
    const std::vector<bench::Target> targets = bench::evaluate_targets(b.rows());
    const std::string table = bench::format_table(header, b.rows(), targets);
    std::printf("\n%s", bench::format_targets(targets).c_str());
    std::printf("%s\n", bench::clock_range(b.rows()).c_str());
    if (!options.out_dir.empty()) bench::write_files(options.out_dir, header, b.rows(), targets, table);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
  return 0;
}
