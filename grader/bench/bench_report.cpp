#include "grader/bench/bench_report.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>

#include "grader/core/json_writer.hpp"

namespace bench {
namespace {

bool known(double x) { return x == x; }

std::string number(const char* format, double x) {
  if (!known(x)) return "-";
  char text[32];
  std::snprintf(text, sizeof text, format, x);
  return text;
}

// The fastest correct reference kernel (not a yardstick) of a group and distribution whose name
// (or another field) contains one of `names` (all when empty); nullptr when there is none.
const Row* fastest(const std::vector<Row>& rows, const std::string& group, const std::string& dist,
                   const std::vector<std::string>& names = {}, std::string Row::*field = &Row::kernel) {
  const Row* best = nullptr;
  for (const Row& r : rows) {
    if (r.group != group || r.distribution != dist || r.is_yardstick || !r.correct) continue;
    bool named = names.empty();
    for (const std::string& name : names) named = named || (r.*field).find(name) != std::string::npos;
    if (named && (best == nullptr || r.time.median < best->time.median)) best = &r;
  }
  return best;
}

std::vector<std::string> distributions_of(const std::vector<Row>& rows, const std::string& group) {
  std::vector<std::string> out;
  for (const Row& r : rows) {
    if (r.group != group) continue;
    bool seen = false;
    for (const std::string& d : out) seen = seen || d == r.distribution;
    if (!seen) out.push_back(r.distribution);
  }
  return out;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream file(path);
  file << text;
  if (!file) throw std::runtime_error("cannot write " + path);
}

std::string csv_field(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string Header::text() const {
  const std::string clocks = clocks_unknown_because.empty()
                                 ? "SM clock up to " + std::to_string(sm_max_mhz) + " MHz, power limit " +
                                       std::to_string(power_limit_w) + " W"
                                 : "clocks unknown: " + clocks_unknown_because;
  return "GPU: " + gpu + " | driver " + driver + " | CUDA runtime " + runtime + (cub.empty() ? "" : " | CUB " + cub) +
         " | " + date + " | " +
         clocks + "\nTimes: median of " + std::to_string(runs) +
         " runs after 3 warm-up runs, L2 flushed before each; spread = (q3 - q1) / median"
         "\nRatios to the read, the copy and CUB: the median of the runs' ratios, those yardsticks"
         " timed in turn with each kernel";
}

std::string table_heading() {
  char line[256];
  std::snprintf(line, sizeof line, "%-36s %-16s %10s %7s %8s %7s %7s %8s %7s  %s", "kernel",
                "distribution", "median ms", "spread", "GB/s", "% read", "% copy", "x base",
                "x CUB", "launch");
  return line;
}

std::string group_heading(const std::string& group) { return "--- " + group + " ---"; }

std::string format_row(const Row& r) {
  char line[512];
  if (!r.correct) {
    std::snprintf(line, sizeof line, "%-36s %-16s %10s  (not timed: result differs from the CPU)  %s",
                  r.kernel.c_str(), r.distribution.c_str(), "WRONG", r.launch.c_str());
    return line;
  }
  std::snprintf(line, sizeof line, "%-36s %-16s %10.4f %6.1f%% %8.0f %7s %7s %8s %7s  %s",
                r.kernel.c_str(), r.distribution.c_str(), r.time.median,
                100 * r.time.relative_spread(), r.gbps(), number("%.1f", r.read_percent).c_str(),
                number("%.1f", r.copy_percent).c_str(), number("%.2f", r.vs_baseline).c_str(),
                number("%.2f", r.vs_cub).c_str(), r.launch.c_str());
  return line;
}

std::string format_table(const Header& header, const std::vector<Row>& rows,
                         const std::vector<Target>& targets) {
  std::string out = header.text() + "\n" + table_heading() + "\n";
  std::string group;
  for (const Row& r : rows) {
    if (r.group != group) out += group_heading(group = r.group) + "\n";
    out += format_row(r) + "\n";
  }
  return out + "\n" + format_targets(targets);
}

// The goals of the references (every kernel at the memory roofline), read from the fastest correct
// reference of each group: 90 % of a read of the input for a histogram, and faster than CUB's
// HistogramEven wherever CUB itself is below 90 % of that read (where it is not, no goal).
std::vector<Target> evaluate_targets(const std::vector<Row>& rows) {
  std::vector<Target> targets;
  auto add = [&](const std::string& name, const Row* row, double goal,
                 const std::function<double(const Row&)>& measure) {
    targets.push_back({name, row ? row->kernel : "(no correct row)", goal,
                       row ? measure(*row) : kNotRelevant});
  };
  const auto read = [](const Row& r) { return r.read_percent; };
  const auto copy = [](const Row& r) { return r.copy_percent; };
  const auto add_vs_cub = [&](const std::string& group, const std::string& d, const Row* best) {
    const Row* cub = nullptr;
    for (const Row& r : rows) {
      if (r.group == group && r.distribution == d && r.is_yardstick && r.kernel == "CUB HistogramEven") cub = &r;
    }
    if (cub == nullptr || !(cub->read_percent < 90)) return;
    add(group + ", fastest reference: x CUB, which is below 90 % of read (" + d + ")", best, 1,
        [](const Row& r) { return r.vs_cub; });
  };
  const std::string h1024 = "1024-bin histogram";
  for (const std::string& d : distributions_of(rows, h1024)) {
    const Row* best = fastest(rows, h1024, d);
    add(h1024 + ", fastest reference: % of read bandwidth (" + d + ")", best, 90, read);
    add_vs_cub(h1024, d, best);
    const Row* inverse = fastest(rows, h1024, d, {"lab04 v1 inverse"});
    const Row* banks4 = fastest(rows, h1024, d, {"lab04 v4 banks4"});
    targets.push_back({"lab04 banks4: x faster than inverse (" + d + ")", "lab04 v4 banks4", 3,
                       inverse && banks4 ? inverse->time.median / banks4->time.median : kNotRelevant});
  }
  const std::string h4096 = "4096-bin histogram";
  for (const std::string& d : distributions_of(rows, h4096)) {
    const Row* best = fastest(rows, h4096, d, {"saturate"});
    add(h4096 + " + saturation: % of read bandwidth (" + d + ")", best, 90, read);
    add_vs_cub(h4096, d, best);
  }
  const std::string bytes = "256-bin byte histogram";
  for (const std::string& d : distributions_of(rows, bytes)) {
    const Row* best = fastest(rows, bytes, d);
    add(bytes + ", fastest reference: % of read bandwidth (" + d + ")", best, 90, read);
    add_vs_cub(bytes, d, best);
  }
  const std::string letters = "7-bin letter histogram";
  for (const std::string& d : distributions_of(rows, letters)) {
    add(letters + ", fastest reference: % of read bandwidth (" + d + ")", fastest(rows, letters, d), 90, read);
  }
  const std::string equalization = "equalization (lab06)";
  const std::vector<std::string> whole_pipelines = {"(4 stages)", "(2 launches)", "(1 cooperative launch)",
                                                       "(registers too)"};  // not the stages alone
  for (const std::string& d : distributions_of(rows, equalization)) {
    add("equalization end to end, fastest: % of copy bandwidth (" + d + ")",
        fastest(rows, equalization, d, whole_pipelines), 80, copy);
    // What the kernel's own traffic allows at the copy's bandwidth: read twice (count, then remap)
    // and written once is 3/2 of a copy's bytes, less what v3 and v4 keep on chip between passes.
    add("equalization end to end, fastest: % of its own traffic's roofline (" + d + ")",
        fastest(rows, equalization, d, whole_pipelines), 90,
        [](const Row& r) { return r.copy_percent * r.traffic_bytes / r.bytes; });
  }
  const std::string scan = "scan (int32)";
  for (const std::string& d : distributions_of(rows, scan)) {
    // The whole-array versions (v5 on): v1 to v4 restart at every tile, a different problem.
    const Row* best = fastest(rows, scan, d, {"(whole array)"}, &Row::launch);
    add("whole-array scan, fastest reference: % of CUB's throughput", best, 100,
        [](const Row& r) { return 100 * r.vs_cub; });
    add("whole-array scan, fastest reference: % of copy bandwidth", best, 90, copy);
  }
  return targets;
}

std::string clock_range(const std::vector<Row>& rows) {
  unsigned low = 0, high = 0;
  for (const Row& r : rows) {
    if (r.sm_mhz == 0) continue;
    low = low == 0 ? r.sm_mhz : std::min(low, r.sm_mhz);
    high = std::max(high, r.sm_mhz);
  }
  if (high == 0) return "SM clock right after the timed rows: unknown";
  return "SM clock right after the timed rows: " + std::to_string(low) + " to " + std::to_string(high) + " MHz";
}

std::string format_targets(const std::vector<Target>& targets) {
  std::string out = "Targets (ratios from this run):\n";
  for (const Target& t : targets) {
    char line[512];
    std::snprintf(line, sizeof line, "  %-6s %-72s %8s (goal %g; %s)\n", t.met() ? "MET" : "MISSED",
                  t.name.c_str(), number("%.2f", t.measured).c_str(), t.goal, t.kernel.c_str());
    out += line;
  }
  return out;
}

void write_files(const std::string& dir, const Header& header, const std::vector<Row>& rows,
                 const std::vector<Target>& targets, const std::string& table) {
  std::filesystem::create_directories(dir);
  write_text(dir + "/benchmark.txt", table);

  grader::JsonWriter json;
  json.begin_object().key("machine").begin_object()
      .key("gpu").value(header.gpu).key("driver").value(header.driver)
      .key("cuda_runtime").value(header.runtime).key("date").value(header.date)
      .key("timed_runs").value(header.runs).key("ratios").value("in turn")
      .key("sm_clock_max_mhz").value(header.sm_max_mhz > 0 ? double(header.sm_max_mhz) : kNotRelevant)
      .key("power_limit_w").value(header.power_limit_w > 0 ? double(header.power_limit_w) : kNotRelevant)
      .end_object();
  json.key("rows").begin_array();
  for (const Row& r : rows) {
    json.begin_object().key("group").value(r.group).key("kernel").value(r.kernel)
        .key("launch").value(r.launch).key("distribution").value(r.distribution)
        .key("result").value(r.correct ? "correct" : "WRONG").key("yardstick").value(r.is_yardstick)
        .key("median_ms").value(r.correct ? r.time.median : kNotRelevant)
        .key("min_ms").value(r.correct ? r.time.min : kNotRelevant)
        .key("max_ms").value(r.correct ? r.time.max : kNotRelevant)
        .key("spread_percent").value(r.correct ? 100 * r.time.relative_spread() : kNotRelevant)
        .key("gbps").value(r.correct ? r.gbps() : kNotRelevant)
        .key("traffic_bytes").value(r.traffic_bytes)
        .key("read_percent").value(r.read_percent).key("copy_percent").value(r.copy_percent)
        .key("speedup_vs_baseline").value(r.vs_baseline).key("speedup_vs_cub").value(r.vs_cub)
        .key("sm_clock_mhz").value(r.sm_mhz > 0 ? double(r.sm_mhz) : kNotRelevant)
        .end_object();
  }
  json.end_array().key("targets").begin_array();
  for (const Target& t : targets) {
    json.begin_object().key("target").value(t.name).key("kernel").value(t.kernel)
        .key("goal").value(t.goal).key("measured").value(t.measured).key("met").value(t.met())
        .end_object();
  }
  json.end_array().end_object();
  write_text(dir + "/benchmark.json", json.text() + "\n");

  std::string csv = "group,kernel,launch,distribution,result,median_ms,spread_percent,gbps,"
                    "read_percent,copy_percent,speedup_vs_baseline,speedup_vs_cub,yardstick\n";
  for (const Row& r : rows) {
    auto f = [&](double x) { return r.correct ? number("%.6g", x) : std::string("-"); };
    csv += csv_field(r.group) + "," + csv_field(r.kernel) + "," + csv_field(r.launch) + "," +
           csv_field(r.distribution) + "," + (r.correct ? "correct" : "WRONG") + "," +
           f(r.time.median) + "," + f(100 * r.time.relative_spread()) + "," + f(r.gbps()) + "," +
           f(r.read_percent) + "," + f(r.copy_percent) + "," + f(r.vs_baseline) + "," +
           f(r.vs_cub) + "," + (r.is_yardstick ? "yes" : "no") + "\n";
  }
  write_text(dir + "/benchmark.csv", csv);
}

}  // namespace bench
