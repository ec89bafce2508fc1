#include "grader/runner/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

extern char** environ;

namespace grader::runner {
namespace {

// argv/envp for exec: pointers into `strings`, then nullptr.
std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (std::string& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

}  // namespace

std::vector<std::string> runner_environment() {
  std::vector<std::string> kept;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "GRADER_", 7) != 0) kept.emplace_back(*e);
  }
  return kept;
}

pid_t start_child(const std::vector<std::string>& argv, const std::vector<ChildDescriptor>& descriptors,
                  const std::vector<std::string>& more_environment) {
  std::vector<std::string> args = argv, env;
  for (const std::string& variable : runner_environment()) {
    const std::string name = variable.substr(0, variable.find('=') + 1);
    const bool replaced = std::any_of(more_environment.begin(), more_environment.end(),
                                      [&](const std::string& v) { return v.compare(0, name.size(), name) == 0; });
    if (!replaced) env.push_back(variable);
  }
  env.insert(env.end(), more_environment.begin(), more_environment.end());
  std::vector<char*> argv_p = pointers(args), env_p = pointers(env);  // before fork: no malloc after
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  setpgid(0, 0);                     // its own group, so a timeout ends everything it started
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // and it never outlives the checker
  for (const ChildDescriptor& d : descriptors) {
    if (d.source == d.target) {
      fcntl(d.target, F_SETFD, 0);  // keep it across exec
    } else {
      dup2(d.source, d.target);
    }
  }
  const auto given = [&](int fd) {
    return std::any_of(descriptors.begin(), descriptors.end(), [fd](const ChildDescriptor& d) { return d.target == fd; });
  };
  for (int fd = 3, last = static_cast<int>(sysconf(_SC_OPEN_MAX)); fd < last && fd < 65536; ++fd) {
    if (!given(fd)) close(fd);  // nothing of the checker's (results channel, key pipe, files) crosses over
  }
  execvpe(argv_p[0], argv_p.data(), env_p.data());
  std::fprintf(stderr, "[ grader   ] cannot start %s: %s\n", argv_p[0], std::strerror(errno));
  _exit(127);
}

}  // namespace grader::runner
