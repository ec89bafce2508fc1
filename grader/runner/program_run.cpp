#include "grader/runner/program_run.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "grader/runner/child_process.hpp"
#include "grader/runner/program_report.hpp"
#include "grader/runner/process.hpp"

namespace grader::runner {

namespace {

// 32 hex digits from the kernel's random source: this run's report token.
std::string fresh_token() {
  unsigned char bytes[16] = {};
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  const bool got = fd >= 0 && read(fd, bytes, sizeof bytes) == static_cast<ssize_t>(sizeof bytes);
  if (fd >= 0) close(fd);
  if (!got) return "";  // no token: no report can match, and the checks fail saying so
  std::string text;
  for (unsigned char b : bytes) {
    text += "0123456789abcdef"[b >> 4];
    text += "0123456789abcdef"[b & 15];
  }
  return text;
}

// What loads the counters into the program (the grader's CUPTI library, or the CPU backend's own),
// and what they need to know.
std::vector<std::string> counting_environment(const std::string& token) {
  std::vector<std::string> env = {std::string(kReportVariable) + "=" + std::to_string(kProgramReportFd) + ":" + token};
#ifndef CUDA_CPU_BACKEND
  env.push_back(std::string("LD_PRELOAD=") + GRADER_PROGRAM_COUNTERS);
#endif
  return env;
}

}  // namespace

ProgramRun run_program(const std::vector<std::string>& wrapper, const std::string& program,
                       const std::vector<std::string>& args, double timeout_seconds, bool counted) {
  ProgramRun run;
  int out[2], err[2], report[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 || (counted && pipe2(report, O_CLOEXEC) != 0)) {
    run.how = std::string("could not be started: pipe failed: ") + std::strerror(errno);
    return run;
  }
  std::vector<std::string> argv = wrapper;
  argv.push_back(program);
  argv.insert(argv.end(), args.begin(), args.end());
  const int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  std::vector<ChildDescriptor> descriptors = {{null_in, 0}, {out[1], 1}, {err[1], 2}};
  if (counted) descriptors.push_back({report[1], kProgramReportFd});
  if (counted) run.token = fresh_token();
  const pid_t pid = start_child(argv, descriptors, counted ? counting_environment(run.token) : std::vector<std::string>{});
  if (null_in >= 0) close(null_in);
  close(out[1]);
  close(err[1]);
  if (counted) close(report[1]);
  if (pid < 0) {
    close(out[0]);
    close(err[0]);
    if (counted) close(report[0]);
    run.how = std::string("could not be started: fork failed: ") + std::strerror(errno);
    return run;
  }
  run.started = true;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(timeout_seconds * 1000));
  // The report's pipe too: its line comes at the program's exit (or never), and its end closes
  // with the program.
  pollfd fds[3] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}, {report[0], POLLIN, 0}};
  std::string* sinks[3] = {&run.out, &run.err, &run.report};
  const int pipes = counted ? 3 : 2;
  int open_pipes = pipes;
  while (open_pipes > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now()).count();
    if (timeout_seconds > 0 && left <= 0) {
      run.timed_out = true;
      break;
    }
    if (poll(fds, pipes, timeout_seconds > 0 ? static_cast<int>(left) : -1) < 0 && errno != EINTR) break;
    for (int i = 0; i < pipes; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buffer[65536];
      const ssize_t got = read(fds[i].fd, buffer, sizeof buffer);
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_pipes;
      } else if (sinks[i]->size() < kMaxCapturedBytes) {
        sinks[i]->append(buffer, static_cast<std::size_t>(got));
      }
    }
  }
  if (run.timed_out) kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  kill(-pid, SIGKILL);  // whatever it left running in its group
  for (int i = 0; i < pipes; ++i) {
    if (fds[i].fd >= 0) close(fds[i].fd);
  }
  if (run.timed_out) {
    run.how = "stopped after " + std::to_string(static_cast<int>(timeout_seconds)) +
              " s: an endless loop, or a wait that never ends?";
  } else {
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.how = describe_exit(status, !wrapper.empty());
  }
  return run;
}

}  // namespace grader::runner
