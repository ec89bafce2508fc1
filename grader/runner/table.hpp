// The runner's side of a lab: the functions of the student's file that the checker may call,
// each bound by name. The lab's labNN_calls.cu (grader/core/lab_calls.py writes it from the lab
// header) lists them once for both sides.
#pragma once
#include <cstring>
#include <functional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "grader/runner/arguments.hpp"

namespace grader::runner {

// A decoded call, ready to run; it writes the function's return value into `result`.
using BoundCall = std::function<void()>;
using Binder = std::function<BoundCall(Reader& args, const std::vector<MappedRegion>& regions,
                                       std::vector<char>& result)>;

struct Exposed {
  std::string name;
  Binder bind;
};

template <class R, class... A>
Exposed expose(const char* name, R (*function)(A...)) {
  if (function == nullptr) {  // a weak reference left null (lab_calls.py, known-wrong runners)
    return {name, [missing = std::string(name)](Reader&, const std::vector<MappedRegion>&,
                                                std::vector<char>&) -> BoundCall {
              throw ProtocolError(missing + " is not defined in this runner's file");
            }};
  }
  return {name, [function](Reader& in, const std::vector<MappedRegion>& regions,
                           std::vector<char>& result) -> BoundCall {
            // Braced initialization decodes the arguments left to right, as they were written.
            std::tuple<std::decay_t<A>...> args{decode_argument<std::decay_t<A>>(in, regions)...};
            if (!in.at_end()) throw ProtocolError("more arguments than the function takes");
            return [function, args, &result]() {
              if constexpr (std::is_void_v<R>) {
                std::apply(function, args);
                (void)result;  // nothing to return (clang: an unused capture otherwise)
              } else {
                static_assert(std::is_trivially_copyable_v<R>, "a return type that cannot travel");
                const R value = std::apply(function, args);
                result.resize(sizeof(R));
                std::memcpy(result.data(), &value, sizeof(R));
              }
            };
          }};
}

// Defined once per runner program: the lab's table (labNN_calls.cu, generated) or the grader's
// yardsticks (grader/core/yardstick_calls.cu).
const std::vector<Exposed>& exposed_functions();

}  // namespace grader::runner

#define GRADER_EXPOSE(function) ::grader::runner::expose(#function, &function)
