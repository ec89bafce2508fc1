// A sweep's table as a CSV file that grader/bench/plot_sweeps.py draws without knowing the lab.
// One layout for every lab's sweep (labs/NN-*/labNN_sweep.cu), given --csv=FILE:
//   # key: value        metadata first: what to draw (x, y, series, scales, reference lines),
//                       the GPU, the date (keys: grader/bench/sweep_csv.py)
//   column,column,...   the header row
//   cell,cell,...       one row per line of the printed table (quoted where a cell holds , or ")
// Without --csv every call below does nothing, and the sweep only prints its table. The file is
// created at the first call (a path that cannot be written is an error then), and written when the
// SweepCsv goes (after run_sweep): metadata met half-way (a yardstick measured with its data) still
// goes to the top, and a sweep stopped by an error leaves the rows it measured.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace grader {

class SweepCsv {
 public:
  // Takes --csv=FILE (or --csv FILE) out of argv: call it before run_sweep, which refuses options
  // it does not know.
  SweepCsv(int& argc, char** argv) {
    int kept = 1;
    for (int i = 1; i < argc; ++i) {
      if (std::strncmp(argv[i], "--csv=", 6) == 0) {
        path_ = argv[i] + 6;
      } else if (std::strcmp(argv[i], "--csv") == 0 && i + 1 < argc) {
        path_ = argv[++i];
      } else {
        argv[kept++] = argv[i];
      }
    }
    argc = kept;
    argv[argc] = nullptr;
  }
  ~SweepCsv() {
    if (file_ == nullptr) return;
    for (const std::vector<std::string>* lines : {&meta_, &rows_}) {
      for (const std::string& text : *lines) std::fprintf(file_, "%s\n", text.c_str());
    }
    std::fclose(file_);
  }
  SweepCsv(const SweepCsv&) = delete;
  SweepCsv& operator=(const SweepCsv&) = delete;

  // The metadata every sweep writes first: the lab ("01"), the plot's title, the GPU, the date.
  void begin(const std::string& lab, const std::string& title, const std::string& gpu) {
    meta("lab", lab);
    meta("title", title);
    meta("gpu", gpu);
    char date[32] = "";
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    meta("date", date);
  }
  // What is drawn: the y column against the x column, one line per `series` (a column, or a format
  // over columns: "{version}, {block} threads/block"), the rows whose result column says WRONG marked.
  void plot(const std::string& x, const std::string& xlabel, const std::string& y, const std::string& ylabel,
            const std::string& series) {
    for (const auto& [key, value] : {std::pair<const char*, std::string>{"x", x}, {"xlabel", xlabel}, {"y", y},
                                     {"ylabel", ylabel}, {"series", series}, {"mark", "result=WRONG"}}) {
      meta(key, value);
    }
  }
  void meta(const std::string& key, const std::string& value) {
    if (open()) meta_.push_back("# " + key + ": " + one_line(value));
  }
  // A horizontal line on the plot (a yardstick), in the unit of the y column.
  void reference(const std::string& label, double value) { meta("reference", label + " = " + number(value, 4)); }
  // The header row first, then one per measurement.
  void row(std::initializer_list<std::string> cells) {
    if (!open()) return;
    std::string text;
    for (const std::string& cell : cells) {
      if (&cell != cells.begin()) text += ',';
      text += quoted(cell);
    }
    rows_.push_back(text);
  }

  static std::string number(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
  }
  static std::string number(long long value) { return std::to_string(value); }

 private:
  bool open() {
    if (path_.empty()) return false;
    if (file_ == nullptr) {
      file_ = std::fopen(path_.c_str(), "w");
      if (file_ == nullptr) {
        throw std::runtime_error("cannot write the CSV file " + path_ + ": " + std::strerror(errno));
      }
    }
    return true;
  }
  static std::string one_line(std::string text) {
    for (char& c : text) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    return text;
  }
  static std::string quoted(const std::string& cell) {
    if (cell.find_first_of(",\"\n") == std::string::npos) return cell;
    std::string text = "\"";
    for (char c : cell) text += c == '"' ? std::string("\"\"") : std::string(1, c);
    return text + "\"";
  }

  std::string path_;
  std::FILE* file_ = nullptr;
  std::vector<std::string> meta_, rows_;
};

}  // namespace grader
