// How the checker calls the student's code: never directly. Each lab function the tests call is
// defined on the checker's side as a call_student() that sends the call to the runner process,
// where the student's file is linked: labNN_calls.cu, which grader/core/lab_calls.py writes from
// the lab header's declarations. Pointer arguments must point into
// DeviceBuffers (shared with the runner); the runner waits for the GPU after every call, and what
// it reports (launch error, fault, kernels launched, bytes copied to the host) waits here for
// check_kernel_ran().
#pragma once
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "grader/runner/arguments.hpp"
#include "grader/runner/process.hpp"

namespace grader {

// The runner crashed, hung, exited or could not start during a call: the test it happened in ends
// there (as when the student's code ran in the test's own process), with this message.
class RunnerFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The checker's runner (started at the first call): --runner=, GRADER_RUNNER_WRAPPER (one
// argument per line: a sanitizer or sandbox command to start it through), GRADER_TEST_TIMEOUT.
runner::RunnerProcess& student_runner();

// What the calls since the last check_kernel_ran() reported, merged: the first error wins.
struct StudentCalls {
  bool any = false;
  std::string function;  // the first failing one, else the last
  runner::CallReply reply;
};
StudentCalls take_student_calls();
void discard_student_calls();  // at each test's start

// "" when the runner's reply says the call(s) went well; else what went wrong, for a message.
std::string describe_failed_reply(const std::string& function, const runner::CallReply& reply);

// A function of the student's that threw: rethrown here as the same type when the lab registered
// it (GRADER_STUDENT_EXCEPTION), as std::invalid_argument when it was one, else std::runtime_error.
using Rethrower = bool (*)(const std::string& type, const std::string& what);
bool add_student_exception(Rethrower rethrow);

namespace detail {

void encode_pointer(runner::Writer& out, std::vector<const runner::SharedRegion*>& regions,
                    const void* pointer);

template <class T>
void encode_argument(runner::Writer& out, std::vector<const runner::SharedRegion*>& regions,
                     const T& value) {
  if constexpr (runner::travels_as_pointer<T>) {
    encode_pointer(out, regions, value);
  } else {
    static_assert(runner::travels_as_value<T>, "an argument type that cannot travel");
    out.put(value);
    if constexpr (std::is_class_v<T>) {
      std::apply([&](auto... member) { (encode_pointer(out, regions, value.*member), ...); },
                 runner::PointerMembers<T>::list);
    }
  }
}

// Sends the call; throws for a crash, a timeout or an exception; keeps the rest for
// check_kernel_ran(). Returns the reply's value bytes.
std::vector<char> call_runner(runner::RunnerProcess& runner, const runner::EncodedCall& call,
                              const std::vector<const runner::SharedRegion*>& regions);

}  // namespace detail

// While one lives on this thread, calls are encoded into it instead of run: a timed round's calls
// (grader/core/timed_rounds.cuh) are recorded by running the test's own launch code.
class CallRecorder {
 public:
  CallRecorder();
  ~CallRecorder();
  CallRecorder(const CallRecorder&) = delete;
  CallRecorder& operator=(const CallRecorder&) = delete;
  static CallRecorder* active();

  std::vector<runner::EncodedCall> calls;
  std::vector<const runner::SharedRegion*> regions;  // one table for the whole round

 private:
  CallRecorder* outer_;
};

// Calls `function` in `runner`'s process (or records it, inside a CallRecorder).
template <class R, class... A>
R call_in(runner::RunnerProcess& runner, const char* function, const A&... args) {
  if (CallRecorder* recorder = CallRecorder::active()) {
    runner::Writer out;
    (detail::encode_argument(out, recorder->regions, args), ...);
    recorder->calls.push_back({function, out.bytes()});
    if constexpr (!std::is_void_v<R>) return R{};
    else return;
  }
  runner::EncodedCall call{function, {}};
  std::vector<const runner::SharedRegion*> regions;
  runner::Writer out;
  (detail::encode_argument(out, regions, args), ...);
  call.arguments = out.bytes();
  const std::vector<char> value = detail::call_runner(runner, call, regions);
  if constexpr (!std::is_void_v<R>) {
    R result{};
    if (value.size() != sizeof(R)) throw std::runtime_error(std::string(function) + " returned no value");
    std::memcpy(&result, value.data(), sizeof(R));
    return result;
  }
}

// The labs' functions, as the generated labNN_calls.cu defines them on the checker's side.
template <class R, class... A>
R call_student(const char* function, const A&... args) {
  return call_in<R>(student_runner(), function, args...);
}

}  // namespace grader

// In a lab's labNN_calls.cu, checker side (lab_calls.py writes one for each exception class of the
// lab header): lab04::LaunchShapeError crosses back as itself.
#define GRADER_STUDENT_EXCEPTION(type)                                                    \
  static const bool grader_rethrows_##__LINE__ = ::grader::add_student_exception(          \
      [](const std::string& name, const std::string& what) -> bool {                      \
        if (name == typeid(type).name()) throw type(what);                                 \
        return false;                                                                      \
      })
