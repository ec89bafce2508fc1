#include "grader/core/student_code.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "grader/core/cuda_check.cuh"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/watchdog.hpp"
#include "grader/runner/counters.hpp"
#ifdef CUDA_CPU_BACKEND
#include "cpu_backend/control.hpp"
#endif

namespace grader {
namespace {

std::vector<Rethrower>& rethrowers() {
  static std::vector<Rethrower> list;
  return list;
}

StudentCalls& pending() {
  static StudentCalls calls;
  return calls;
}

// The test running now, for a later probe's message ("it ran past the limit in ...").
std::string current_test() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info == nullptr ? "" : std::string(info->test_suite_name()) + "." + info->name();
}

std::vector<std::string> wrapper_from_environment() {
  std::vector<std::string> args;
  const char* text = std::getenv("GRADER_RUNNER_WRAPPER");
  if (text == nullptr) return args;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) args.push_back(line);
  }
  return args;
}

[[noreturn]] void rethrow(const std::string& function, const runner::CallReply& reply) {
  for (Rethrower r : rethrowers()) r(reply.exception_type, reply.text);
  if (reply.exception_type == typeid(std::invalid_argument).name()) {
    throw std::invalid_argument(reply.text);
  }
  throw std::runtime_error(function + " threw an exception: " + reply.text);
}

}  // namespace

std::string describe_failed_reply(const std::string& function, const runner::CallReply& reply) {
  if (reply.process != runner::CallReply::Process::kAlive) {
    return function + ": the process running the code " + reply.process_text;
  }
  const auto status = static_cast<cudaError_t>(reply.cuda_error);
  switch (reply.outcome) {
    case runner::Outcome::kOk: return "";
    case runner::Outcome::kLaunchError: return function + ": a launch failed: " + describe_cuda_error(status);
    case runner::Outcome::kRunError: return function + " failed while running: " + describe_cuda_error(status);
    case runner::Outcome::kException: return function + " threw an exception: " + reply.text;
    case runner::Outcome::kBadCall: return "grader: the runner could not take " + function + ": " + reply.text;
  }
  return function + ": unknown outcome";
}

runner::RunnerProcess& student_runner() {
  static runner::RunnerProcess runner([] {
    runner::RunnerOptions options;
    options.program = run_options().runner_path;
    options.wrapper = wrapper_from_environment();
    options.timeout_seconds = test_timeout_seconds();
    // A thirtieth of the limit, at least 1 s: a call that returns at once (an empty input) still
    // does, and a limit raised for a slow tool (a sanitizer) raises the probe with it.
    options.probe_seconds = std::max(1.0, options.timeout_seconds / 30);
    options.timeout_advice = how_to_allow_more_time(options.timeout_seconds);
    options.describe_where = current_test;
    options.evidence = run_options().evidence;
    options.races = run_options().races;
    if (const char* text = std::getenv("GRADER_RUNNER_START_TIMEOUT")) {
      options.start_timeout_seconds = std::strtod(text, nullptr);
    }
    if (options.program.empty()) {
      throw std::runtime_error("the grader needs GRADER_RUNNER: the program built "
                               "from your lab file (meson test and grade.py set it)");
    }
    return options;
  }());
  return runner;
}

bool add_student_exception(Rethrower rethrow) {
  rethrowers().push_back(rethrow);
  return true;
}

namespace {
thread_local CallRecorder* active_recorder = nullptr;
}  // namespace

CallRecorder::CallRecorder() : outer_(active_recorder) { active_recorder = this; }
CallRecorder::~CallRecorder() { active_recorder = outer_; }
CallRecorder* CallRecorder::active() { return active_recorder; }

StudentCalls take_student_calls() {
  StudentCalls taken = pending();
  pending() = StudentCalls{};
  return taken;
}

void discard_student_calls() { pending() = StudentCalls{}; }

namespace detail {

void encode_pointer(runner::Writer& out, std::vector<const runner::SharedRegion*>& regions,
                    const void* pointer) {
  if (pointer == nullptr) {
    out.put(runner::kNullRegion);
    out.put(std::uint64_t{0});
    return;
  }
  const runner::SharedRegion* region = runner::find_shared(pointer);
  if (region == nullptr) {
    throw std::logic_error("grader: a pointer passed to the student's code is not in a "
                           "DeviceBuffer, so the runner cannot see it");
  }
  std::uint32_t index = 0;
  while (index < regions.size() && regions[index] != region) ++index;
  if (index == regions.size()) regions.push_back(region);
  out.put(index);
  out.put(static_cast<std::uint64_t>(static_cast<const char*>(pointer) - region->base));
}

std::vector<char> call_runner(runner::RunnerProcess& runner, const runner::EncodedCall& call,
                              const std::vector<const runner::SharedRegion*>& regions) {
  std::uint64_t schedule = runner::kKeepSchedule;
#ifdef CUDA_CPU_BACKEND
  schedule = cpu_backend::schedule_seed();  // a rerun under another schedule (bins_check.cuh)
#endif
  // The runner is another process, with no stream order with this one: every write queued here
  // (poison fills, uploads) is finished before it runs the student's code on the same memory.
  // Without a GPU (no driver, no device) there is nothing to wait for: the runner says so itself.
  const cudaError_t synced = cudaDeviceSynchronize();
  if (synced != cudaErrorInsufficientDriver && synced != cudaErrorNoDevice) GRADER_CUDA_CHECK(synced);
  const runner::CallReply reply = runner.call(call, regions, schedule);
  if (reply.process != runner::CallReply::Process::kAlive) {
    discard_student_calls();
    throw RunnerFailure(call.function + ": the process running your code " + reply.process_text +
                        (reply.process == runner::CallReply::Process::kCrashed
                             ? " (its output above may say where)"
                             : ""));
  }
  if (reply.outcome == runner::Outcome::kBadCall) {
    throw std::logic_error("grader: the runner could not take the call " + call.function + ": " +
                           reply.text);
  }
  for (const std::string& name : reply.kernel_names) record_launched_kernel(name);
  if (reply.evidence.collected || !reply.evidence.unavailable.empty()) record_evidence(call.function, reply.evidence);
  if (reply.outcome == runner::Outcome::kException) rethrow(call.function, reply);
  StudentCalls& calls = pending();
  const bool keep_first_error = calls.any && calls.reply.outcome != runner::Outcome::kOk;
  const std::uint64_t kernels = calls.reply.kernels, to_host = calls.reply.device_to_host_bytes;
  if (!keep_first_error) {
    calls.function = call.function;
    calls.reply = reply;
  }
  calls.any = true;
  const bool counted = kernels != runner::kUncounted && reply.kernels != runner::kUncounted;
  calls.reply.kernels = counted ? kernels + reply.kernels : runner::kUncounted;
  calls.reply.device_to_host_bytes = to_host + reply.device_to_host_bytes;
  return reply.value;
}

}  // namespace detail
}  // namespace grader
