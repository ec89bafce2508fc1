// Timing the runner cannot fake. The checker owns every buffer and the clock; a timed round is
// K calls of the student's function, each on its own fresh input, run back to back in the runner:
//   1. the runner maps the round's K inputs and K outputs (untimed);
//   2. the checker writes K fresh inputs, each a random reshuffle of runs of the source data (so no
//      result can be reused, and no input is still in L2 from the last call), poisons the outputs;
//   3. clock starts; the runner launches the K calls and waits for the GPU; on its reply the
//      checker copies a snapshot of every output (all of a small one, 1024 random words of a large
//      one); clock stops when that copy has landed;
//   4. untimed: the snapshot must equal the outputs as they end up (a runner that replied while its
//      kernels still ran is caught: its snapshot differs); each input is made again from its seed
//      into the checker's own memory, which no runner is given: the runner's copy must still hold
//      it (a timed call must not write its input), and each output must be right for that copy by
//      the test's trusted reference. The source the inputs are made from must be memory no runner
//      was ever given (runner::handed_out), or the round is refused.
// A call's time is the round's, less the channel's fixed cost, over K; the measurement is the
// median of the first 7 consecutive rounds whose middle half lies within 2 % (a GPU settling after
// gigabytes were allocated runs its first rounds slower; at most 7 more rounds are run for that). The fixed cost (messages, the GPU switching between the two processes, the
// snapshot) is a round of one empty kernel in the grader's own runner, measured once per run: a
// runner can only add to a round's time, never take from that cost. The grader's yardsticks run the
// same way, in a runner of the grader's own (yardstick_runner()), so every ratio compares like with
// like.
#pragma once
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <string>

#include "grader/core/statistics.hpp"
#include "grader/core/yardsticks.cuh"
#include "grader/runner/process.hpp"

namespace grader {

struct RoundOptions {
  int rounds = 7;            // timed rounds (after two untimed ones: an estimate, a warm-up)
  double steady_spread = 0.02;  // the rounds' interquartile range must be within this of their
                             // median; more rounds (at most `rounds` more) until it is. 0: no rule
  int max_calls = 480;       // K at most: enough calls for a round of 16 ms, as memory allows
  int calls = 0;             // K itself; 0: chosen from the estimate
  bool subtract_channel_cost = true;  // false only to measure that cost
  int run_elements = 1024;   // length of the source's runs the fresh inputs are made of
};

// What a timed measurement needs from its test. `launch(in, out)` calls the student's (or a
// yardstick's) function on one input and output: it is recorded, not run, and sent as the round.
// `verify(in, out)` checks one output after the round, with the grader's own code; `in` is then
// the checker's own copy of that call's input, never the buffer the runner had.
template <class In, class Out>
struct TimedWork {
  std::string name;
  const In* source = nullptr;   // fresh inputs are made from this (device memory no runner was given)
  std::size_t input_count = 0;  // elements of each input
  std::size_t output_count = 0;
  std::function<void(const In* d_in, Out* d_out)> launch;
  std::function<::testing::AssertionResult(const In* d_in, const Out* d_out)> verify;
};

namespace detail {
struct ErasedWork {
  std::string name;
  const void* source;
  std::size_t input_bytes, output_bytes, element_bytes;
  std::function<void(const void*, void*)> launch;
  std::function<::testing::AssertionResult(const void*, const void*)> verify;
};
::testing::AssertionResult time_rounds(runner::RunnerProcess& runner, const ErasedWork& work,
                                       const RoundOptions& options, Summary& per_call_ms);
}  // namespace detail

// Milliseconds per call, median over rounds. Fails (with the reason) when a call fails, an input
// was changed, an output is wrong, or the outputs changed after the runner said it was done.
template <class In, class Out>
::testing::AssertionResult time_rounds(runner::RunnerProcess& runner, const TimedWork<In, Out>& work,
                                       Summary& per_call_ms, const RoundOptions& options = {}) {
  static_assert(sizeof(In) == 1 || sizeof(In) == 4, "inputs of 1- or 4-byte elements");
  detail::ErasedWork erased{
      work.name, work.source, work.input_count * sizeof(In), work.output_count * sizeof(Out),
      sizeof(In),
      [&work](const void* in, void* out) { work.launch(static_cast<const In*>(in), static_cast<Out*>(out)); },
      [&work](const void* in, const void* out) {
        return work.verify(static_cast<const In*>(in), static_cast<const Out*>(out));
      }};
  return detail::time_rounds(runner, erased, options, per_call_ms);
}

// The runner of the grader's own yardsticks (--yardstick-runner=PATH; meson passes it).
runner::RunnerProcess& yardstick_runner();

// The channel's fixed cost of a round, in ms: the fastest of rounds of one call that launches an
// empty kernel, in the yardstick runner, once the GPU is awake; measured once per run and
// subtracted from every timed round.
double channel_cost_ms();

}  // namespace grader
