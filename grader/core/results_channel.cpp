#include "grader/core/results_channel.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstdlib>

#include "grader/core/json_writer.hpp"
#include "grader/core/run_options.hpp"

namespace grader::results_channel {
namespace {

constexpr const char* kVariable = "GRADER_RESULTS_CHANNEL";
constexpr std::size_t kMaxKeyBytes = 256;

struct Channel {
  int out_fd = -1;
  std::string key;
  bool has_seed = false;  // the batch's hidden seed, sent in the key pipe (never env or argv)
  std::uint64_t seed = 0;
};

// Opened on first use: the key is read once, its pipe closed, the variable removed, and the output
// descriptor marked close-on-exec, so nothing this process starts inherits either.
Channel open_channel() {
  Channel channel;
  const char* spec = std::getenv(kVariable);
  if (spec == nullptr) return channel;
  int key_fd = -1, out_fd = -1;
  if (std::sscanf(spec, "%d,%d", &key_fd, &out_fd) != 2 || key_fd < 0 || out_fd < 0) {
    std::fprintf(stderr, "[ grader   ] ignoring malformed %s\n", kVariable);
    return channel;
  }
  unsetenv(kVariable);
  char buffer[kMaxKeyBytes];
  std::string key;
  for (;;) {
    const ssize_t got = read(key_fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    key.append(buffer, static_cast<std::size_t>(got));
    if (key.size() > kMaxKeyBytes) break;
  }
  close(key_fd);
  // The pipe holds "KEY\n" and, where the batch has a hidden seed, "seed N\n".
  const std::size_t line_end = key.find('\n');
  if (line_end != std::string::npos) {
    const std::string rest = key.substr(line_end + 1);
    key.resize(line_end);
    unsigned long long seed = 0;
    if (std::sscanf(rest.c_str(), "seed %llu", &seed) == 1) {
      channel.has_seed = true;
      channel.seed = seed;
    }
  }
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  if (key.empty() || key.size() > kMaxKeyBytes) {
    std::fprintf(stderr, "[ grader   ] the results channel's key could not be read\n");
    return channel;
  }
  fcntl(out_fd, F_SETFD, FD_CLOEXEC);
  channel.out_fd = out_fd;
  channel.key = key;
  return channel;
}

const Channel& channel() {
  static const Channel opened = open_channel();
  return opened;
}

// One line per event: KEY, a space, one JSON object. Written whole, retrying short writes.
void send(const std::string& json) {
  const Channel& c = channel();
  if (c.out_fd < 0) return;
  const std::string line = c.key + " " + json + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t wrote = write(c.out_fd, line.data() + done, line.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return;  // the harness went away; nothing to tell
    done += static_cast<std::size_t>(wrote);
  }
}

}  // namespace

bool hidden_seed(std::uint64_t& seed) {
  const Channel& c = channel();
  if (c.has_seed) seed = c.seed;
  return c.has_seed;
}

void hello(const RunContext& context) {
  JsonWriter json;
  json.begin_object().key("event").value("hello");
  json.key("backend").value(context.backend).key("device").value(context.device);
  send(json.end_object().text());
}

void test_started(const std::string& name) {
  JsonWriter json;
  send(json.begin_object().key("event").value("start").key("test").value(name).end_object().text());
}

void test_finished(const TestRecord& record) {
  JsonWriter json;
  json.begin_object().key("event").value("end").key("test").value(record.name);
  json.key("status").value(record.status).key("kind").value(kind_name(record.points.kind));
  json.key("points").value(record.points.pass).key("stretch_points").value(record.points.stretch);
  json.key("message").value(record.message);
  json.key("needs").begin_array();
  for (const std::string& needed : record.needs) json.value(needed);
  json.end_array();
  json.key("metrics").begin_object();
  for (const auto& [metric, value] : record.metrics) json.key(metric).value(value);
  json.end_object();
  json.key("tiers").begin_array();
  for (const Tier& tier : record.tiers) {
    json.begin_object().key("name").value(tier.name).key("met").value(tier.met);
    json.key("detail").value(tier.detail).end_object();
  }
  json.end_array();
  if (!record.evidence.empty()) {  // the evidence pass: written by the grader, from the runner's counts
    json.key("evidence").begin_array();
    for (const auto& [function, evidence] : record.evidence) {
      json.begin_object().key("function").value(function).key("collected").value(evidence.collected);
      json.key("unavailable").value(evidence.unavailable).key("entries").begin_array();
      for (const runner::EvidenceEntry& e : evidence.entries) {
        json.begin_array().value(e.kernel).value(static_cast<long long>(e.pc)).value(e.kind);
        json.value(static_cast<long long>(e.bytes)).value(static_cast<long long>(e.warps));
        json.value(static_cast<long long>(e.threads)).value(static_cast<long long>(e.sectors)).end_array();
      }
      json.end_array();
      // The race detector's witnesses as the runner sent them, a string: read as JSON and checked
      // by the grader (runs/attempt.py), never spliced into this document.
      if (!evidence.races.empty()) json.key("races").value(evidence.races);
      json.end_object();
    }
    json.end_array();
  }
  send(json.end_object().text());
}

}  // namespace grader::results_channel
