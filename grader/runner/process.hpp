// The checker's handle on its runner: starts the runner program (through the sandbox or sanitizer
// wrapper it is given), sends calls and timed rounds, and notices when the runner crashes, hangs
// or leaves. A runner that is gone is started afresh at the next call, with every live buffer.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "grader/runner/channel.hpp"
#include "grader/runner/evidence.hpp"
#include "grader/runner/shared_memory.hpp"
#include "grader/runner/wire.hpp"

namespace grader::runner {

// One call as the checker encoded it: the function's name, its argument bytes, and the shared
// regions its pointers index.
struct EncodedCall {
  std::string function;
  std::vector<char> arguments;
};

struct CallReply {
  enum class Process { kAlive, kCrashed, kTimedOut, kCannotStart };
  Process process = Process::kAlive;
  std::string process_text;  // "killed by signal 11 (Segmentation fault)", ...
  Outcome outcome = Outcome::kOk;
  int cuda_error = 0;
  std::string text;  // an exception's what(), at most a sentence (process.cpp)
  std::string exception_type;
  std::vector<char> value;
  std::uint64_t kernels = 0;
  std::uint64_t device_to_host_bytes = 0;
  std::vector<std::string> kernel_names;  // the distinct kernels the call launched (counters.hpp)
  Evidence evidence;                      // what they executed, in evidence mode (evidence.hpp)
};

// What starts each line the runner prints, as the checker passes it on (grader/runs/harness.py and
// the batch's student_view.py tell it from the checker's own lines by it).
inline constexpr const char* kRunnerPrefix = "[ runner   ] ";

// "crashed: SIGSEGV (segmentation fault: ...)", in the words the harness (runs/harness.py) uses.
std::string describe_signal(int signal);
// A wait() status in words; `wrapped`: a sandbox or sanitizer ran the program and reports its
// child's signal as an exit status above 128.
std::string describe_exit(int status, bool wrapped);

// How a runner that never reached main() is described (grader/runs/harness.py looks for it).
inline constexpr const char* kNeverStarted = "never started";
// How a call that ran past its limit (or its probe) is described (grader/runs/harness.py too).
inline constexpr const char* kDidNotFinish = "did not finish within";

struct RunnerOptions {
  std::string program;               // the runner executable
  std::vector<std::string> wrapper;  // e.g. compute-sanitizer ..., or a sandbox; may be empty
  double timeout_seconds = 30;       // per call or round; 0 = none
  // For the runner's main() to say it started (a kReady): code run before main() that hangs ends
  // there, as "never started". 0 = timeout_seconds.
  double start_timeout_seconds = 0;
  // A function that once ran past timeout_seconds gets only this long (a probe) in its later
  // calls: still running without a reply after it, it fails as before, at once. A kernel in an
  // endless loop costs the whole limit once, not once per test. 0 = no probe: the whole limit.
  double probe_seconds = 0;
  std::string timeout_advice;  // ends a timeout's message: "(to allow more time: ...)", or ""
  std::function<std::string()> describe_where;  // the test running now, for a probe's message
  // Evidence mode (evidence.hpp): the runner counts what each call's kernels execute, for the
  // technique checks. Slows the kernels: never for a runner that is timed.
  bool evidence = false;
  bool races = false;  // with evidence: the race detector watches too (CPU backend; evidence_cpu.cpp)
};

class RunnerProcess {
 public:
  explicit RunnerProcess(RunnerOptions options) : options_(std::move(options)) {}
  ~RunnerProcess() { stop(); }
  RunnerProcess(const RunnerProcess&) = delete;
  RunnerProcess& operator=(const RunnerProcess&) = delete;

  const RunnerOptions& options() const { return options_; }

  // One call: runs it, waits for the GPU, replies. `regions` are the ones the arguments index.
  CallReply call(const EncodedCall& call, const std::vector<const SharedRegion*>& regions,
                 std::uint64_t schedule_seed = kKeepSchedule);

  // A timed round in two steps: prepare() sends the calls and returns once the runner has mapped
  // every buffer (nothing has run); go() starts them, back to back, and returns when the runner
  // reports that the GPU has finished. Between the two the checker writes the round's inputs.
  CallReply prepare(const std::vector<EncodedCall>& calls,
                    const std::vector<const SharedRegion*>& regions);
  CallReply go();

  void stop();  // ends the runner (it is started again when needed)
  bool running() const { return pid_ > 0; }
  // Runners of this process started and not yet ended, of every RunnerProcess: each holds a GPU
  // context (grader/core/gpu_state.hpp tells them from other tenants of the GPU).
  static int running_count();
  // How the last runner ended when it was stopped, if it ended on its own with a status other
  // than 0 ("" otherwise): under a sanitizer wrapper, an error it reported at exit.
  const std::string& failed_exit() const { return failed_exit_; }

 private:
  CallReply start_if_needed();
  std::vector<char> header(Message kind, std::uint32_t count, std::uint64_t schedule_seed,
                           const std::vector<const SharedRegion*>& regions, std::vector<int>& fds);
  // `functions`: the student's functions the exchange runs (a call, a round's go), or none.
  CallReply exchange(const std::vector<char>& bytes, const std::vector<int>& fds, bool spin,
                     Message expected, const std::vector<std::string>& functions);
  std::string timed_out(const std::vector<std::string>& functions, const std::string* hung_where);
  CallReply ended(CallReply::Process how, const std::string& text);

  RunnerOptions options_;
  pid_t pid_ = -1;
  Channel channel_;
  std::set<std::uint64_t> mapped_;  // region ids this runner instance has mapped
  std::vector<std::string> round_functions_;  // those prepare() sent, for go()
  std::map<std::string, std::string> hung_;   // function -> where it ran past timeout_seconds
  std::string failed_exit_;
};

}  // namespace grader::runner
