#include "grader/runner/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "grader/runner/child_process.hpp"
#include "grader/runner/counters.hpp"

namespace grader::runner {

namespace {

constexpr int kChildChannelFd = 3;

std::atomic<int> running_runners{0};
// What a runner says of an exception reaches the student's results: one sentence's worth, so it
// cannot carry its inputs out (the batch caps what students see again: grader/batch/student_view.py).
constexpr std::size_t kMaxReplyText = 240;

std::string capped(std::string text) {
  if (text.size() <= kMaxReplyText) return text;
  const std::size_t cut = text.size() - kMaxReplyText;
  text.resize(kMaxReplyText);
  return text + " [... " + std::to_string(cut) + " characters cut]";
}

// Every line the runner (or its wrapper) prints goes to the checker's standard output behind
// kRunnerPrefix, so that what the grader says and what student code prints stay apart in the
// captured output (the batch shows students little of the latter). A detached thread per runner:
// a process the runner left behind may hold the pipe open long after the runner ended.
void relay_runner_output(int fd) {
  std::string pending;
  char buffer[4096];
  const auto emit = [](const std::string& line) {
    flockfile(stdout);
    std::fputs(kRunnerPrefix, stdout);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    funlockfile(stdout);
  };
  for (;;) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    pending.append(buffer, static_cast<std::size_t>(got));
    std::size_t start = 0;
    for (std::size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1) {
      emit(pending.substr(start, end - start));
    }
    pending.erase(0, start);
    if (pending.size() > sizeof buffer) {  // a line without end: in pieces
      emit(pending);
      pending.clear();
    }
  }
  if (!pending.empty()) emit(pending);
  close(fd);
}

}  // namespace

int RunnerProcess::running_count() { return running_runners.load(); }

std::string describe_signal(int signal) {
  static const struct {
    int number;
    const char* name;
    const char* meaning;
  } known[] = {
      {SIGSEGV, "SIGSEGV", "segmentation fault: a read or write outside the program's memory; on "
                           "the CPU backend, often a kernel index past the end of a buffer (a "
                           "missing i < n tail check?)"},
      {SIGBUS, "SIGBUS", "bus error: a misaligned or invalid memory access"},
      {SIGABRT, "SIGABRT", "aborted (abort(), a failed assert, or an uncaught exception)"},
      {SIGFPE, "SIGFPE", "arithmetic fault (an integer division by zero?)"},
      {SIGILL, "SIGILL", "illegal instruction"},
      {SIGKILL, "SIGKILL", "killed"},
      {SIGXFSZ, "SIGXFSZ", "file size limit exceeded: it wrote a file larger than the sandbox allows"},
      {SIGXCPU, "SIGXCPU", "CPU time limit exceeded"}};
  for (const auto& k : known) {
    if (k.number == signal) return std::string("crashed: ") + k.name + " (" + k.meaning + ")";
  }
  return "crashed: signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

std::string describe_exit(int status, bool wrapped) {
  if (WIFSIGNALED(status)) return describe_signal(WTERMSIG(status));
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (wrapped && code > 128 && code < 128 + 65) {  // a sandbox reports its child's signal so
    return describe_signal(code - 128);
  }
  if (code == 127) return "could not be started (exit status 127: see the message above)";
  return "exited with status " + std::to_string(code);
}

CallReply RunnerProcess::start_if_needed() {
  if (pid_ > 0) return {};
  int fds[2];
  make_channel_pair(fds);
  std::vector<std::string> argv = options_.wrapper;
  argv.push_back(options_.program);
  argv.push_back("--channel-fd=" + std::to_string(kChildChannelFd));
  int output[2];
  if (pipe2(output, O_CLOEXEC) != 0) {
    close(fds[0]);
    close(fds[1]);
    return ended(CallReply::Process::kCannotStart, std::string("pipe failed: ") + strerror(errno));
  }
  const pid_t pid = start_child(argv, {{fds[1], kChildChannelFd}, {output[1], 1}, {output[1], 2}});
  close(output[1]);
  if (pid < 0) {
    close(output[0]);
    close(fds[0]);
    close(fds[1]);
    return ended(CallReply::Process::kCannotStart, std::string("fork failed: ") + strerror(errno));
  }
  std::thread(relay_runner_output, output[0]).detach();
  close(fds[1]);
  pid_ = pid;
  ++running_runners;
  channel_ = Channel(fds[0]);
  mapped_.clear();
  // The runner's hello from main(): until it comes, the student's code runs before main().
  const double wait_s = options_.start_timeout_seconds > 0 ? options_.start_timeout_seconds
                                                           : options_.timeout_seconds;
  Packet packet;
  switch (channel_.receive(packet, wait_s > 0 ? static_cast<int>(wait_s * 1000) : -1, false)) {
    case Channel::Received::kTimedOut:
      kill(-pid_, SIGKILL);
      return ended(CallReply::Process::kCannotStart,
                   std::string(kNeverStarted) + ": it did not reach main() within " +
                       std::to_string(static_cast<int>(wait_s)) +
                       " s (code that runs before main(), such as a static initializer, hangs or is "
                       "far too slow); the lab's remaining tests are not run");
    case Channel::Received::kClosed:
      return ended(CallReply::Process::kCrashed, "");
    case Channel::Received::kPacket:
      break;
  }
  for (int fd : packet.fds) close(fd);
  bool hello = false;
  try {
    Reader in(packet.bytes);
    hello = in.get<Message>() == Message::kReady;
  } catch (const ProtocolError&) {
  }
  if (!hello) {
    kill(-pid_, SIGKILL);
    return ended(CallReply::Process::kCrashed, "sent the grader a malformed reply (no hello)");
  }
  if (options_.evidence) {  // before the first call, so that every kernel the runner launches is seen
    Writer evidence;
    evidence.put(Message::kEvidence);
    evidence.put(static_cast<std::uint8_t>(options_.races));
    if (!channel_.send(evidence.bytes())) return ended(CallReply::Process::kCrashed, "");
  }
  return {};
}

std::vector<char> RunnerProcess::header(Message kind, std::uint32_t count, std::uint64_t schedule_seed,
                                        const std::vector<const SharedRegion*>& regions,
                                        std::vector<int>& fds) {
  Writer out;
  out.put(kind);
  if (kind == Message::kRound) out.put(count);
  out.put(schedule_seed);
  std::vector<std::uint64_t> released;
  for (std::uint64_t id : take_released_regions()) {
    if (mapped_.erase(id) > 0) released.push_back(id);
  }
  out.put(static_cast<std::uint32_t>(released.size()));
  for (std::uint64_t id : released) out.put(id);
  out.put(static_cast<std::uint32_t>(regions.size()));
  for (const SharedRegion* region : regions) {
    std::int32_t fd_index = -1;
    if (mapped_.insert(region->id).second) {
      fd_index = static_cast<std::int32_t>(fds.size());
      fds.push_back(region->fd);
      note_handed_out(region->id);
    }
    out.put(region->id);
    out.put(static_cast<std::uint64_t>(region->bytes));
    out.put(fd_index);
  }
  return out.bytes();
}

CallReply RunnerProcess::call(const EncodedCall& call, const std::vector<const SharedRegion*>& regions,
                              std::uint64_t schedule_seed) {
  CallReply started = start_if_needed();
  if (started.process != CallReply::Process::kAlive) return started;
  std::vector<int> fds;
  Writer out;
  out.bytes() = header(Message::kCall, 1, schedule_seed, regions, fds);
  out.put_string(call.function);
  out.put_bytes(call.arguments);
  return exchange(out.bytes(), fds, false, Message::kReply, {call.function});
}

CallReply RunnerProcess::prepare(const std::vector<EncodedCall>& calls,
                                 const std::vector<const SharedRegion*>& regions) {
  CallReply started = start_if_needed();
  if (started.process != CallReply::Process::kAlive) return started;
  std::vector<int> fds;
  Writer out;
  out.bytes() = header(Message::kRound, static_cast<std::uint32_t>(calls.size()), kKeepSchedule, regions, fds);
  round_functions_.clear();
  for (const EncodedCall& call : calls) {
    out.put_string(call.function);
    out.put_bytes(call.arguments);
    round_functions_.push_back(call.function);
  }
  return exchange(out.bytes(), fds, false, Message::kReady, {});  // maps buffers, runs nothing
}

CallReply RunnerProcess::go() {
  Writer out;
  out.put(Message::kGo);
  return exchange(out.bytes(), {}, true, Message::kReply, round_functions_);
}

std::string RunnerProcess::timed_out(const std::vector<std::string>& functions,
                                     const std::string* hung_where) {
  char limit[32], probe[32];
  std::snprintf(limit, sizeof limit, "%g", options_.timeout_seconds);
  std::snprintf(probe, sizeof probe, "%g", options_.probe_seconds);
  const std::string advice = options_.timeout_advice.empty() ? "" : " " + options_.timeout_advice;
  if (hung_where != nullptr) {
    return std::string(kDidNotFinish) + " a " + probe + " s probe: it already ran past the " +
           limit + " s limit" + (hung_where->empty() ? "" : " in " + *hung_where) +
           " (an endless loop, or a kernel far too slow?), so it is not given the whole limit "
           "again" + advice;
  }
  const bool probed = options_.probe_seconds > 0 && options_.probe_seconds < options_.timeout_seconds;
  const std::string where = options_.describe_where ? options_.describe_where() : "";
  if (probed) {
    for (const std::string& function : functions) hung_.emplace(function, where);
  }
  return std::string(kDidNotFinish) + " " + limit + " s: an endless loop, or a kernel far too " +
         "slow?" + (probed && !functions.empty() ? " Its later calls get a " + std::string(probe) +
                                                       " s probe, not the whole limit again."
                                                 : "") +
         advice;
}

CallReply RunnerProcess::exchange(const std::vector<char>& bytes, const std::vector<int>& fds,
                                  bool spin, Message expected,
                                  const std::vector<std::string>& functions) {
  if (!channel_.send(bytes, fds)) return ended(CallReply::Process::kCrashed, "");
  double limit_s = options_.timeout_seconds;
  const std::string* hung_where = nullptr;
  for (const std::string& function : functions) {
    const auto hung = hung_.find(function);
    if (hung != hung_.end()) hung_where = &hung->second;
  }
  if (hung_where != nullptr) limit_s = options_.probe_seconds;  // recorded only where shorter
  const int timeout_ms = limit_s > 0 ? static_cast<int>(limit_s * 1000) : -1;
  Packet packet;
  switch (channel_.receive(packet, timeout_ms, spin)) {
    case Channel::Received::kTimedOut:
      return ended(CallReply::Process::kTimedOut, timed_out(functions, hung_where));
    case Channel::Received::kClosed:
      return ended(CallReply::Process::kCrashed, "");
    case Channel::Received::kPacket:
      break;
  }
  CallReply reply;
  try {
    Reader in(packet.bytes);
    const auto kind = in.get<Message>();
    if (kind == expected && kind == Message::kReady) return reply;
    if (kind != Message::kReply) throw ProtocolError("unexpected message");
    reply.outcome = in.get<Outcome>();
    reply.cuda_error = in.get<std::int32_t>();
    reply.text = capped(in.get_string());
    reply.exception_type = in.get_string();
    reply.value = in.get_bytes();
    reply.kernels = in.get<std::uint64_t>();
    reply.device_to_host_bytes = in.get<std::uint64_t>();
    const std::uint32_t names = in.get<std::uint32_t>();
    if (names > kMaxKernelNames) throw ProtocolError("too many kernel names");
    for (std::uint32_t i = 0; i < names; ++i) {
      const std::string name = in.get_string();
      if (name.size() > kMaxKernelNameLength) throw ProtocolError("a kernel name too long");
      reply.kernel_names.push_back(name);
    }
    const bool exiting = in.get<std::uint8_t>() != 0;
    reply.evidence = get_evidence(in);
    if (exiting) stop();
  } catch (const ProtocolError& error) {
    stop();
    reply.process = CallReply::Process::kCrashed;
    reply.process_text = std::string("sent the grader a malformed reply (") + error.what() + ")";
  }
  for (int fd : packet.fds) close(fd);  // a runner has no reason to send any
  return reply;
}

CallReply RunnerProcess::ended(CallReply::Process how, const std::string& text) {
  CallReply reply;
  reply.process = how;
  reply.process_text = text;
  if (pid_ > 0) {
    if (how == CallReply::Process::kTimedOut) kill(-pid_, SIGKILL);
    int status = 0;
    // A closed channel means the runner is ending: wait for it (briefly), then make sure.
    for (int i = 0; i < 200 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
      if (i == 199) {
        kill(-pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    if (reply.process_text.empty()) reply.process_text = describe_exit(status, !options_.wrapper.empty());
    if (how == CallReply::Process::kAlive && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      failed_exit_ = describe_exit(status, !options_.wrapper.empty());
    }
    kill(-pid_, SIGKILL);  // anything it left behind in its group
    --running_runners;
  }
  pid_ = -1;
  channel_.close();
  mapped_.clear();
  return reply;
}

void RunnerProcess::stop() {
  if (pid_ <= 0) return;
  Writer quit;
  quit.put(Message::kQuit);
  channel_.send(quit.bytes());
  channel_.close();
  ended(CallReply::Process::kAlive, "stopped");
}

}  // namespace grader::runner
