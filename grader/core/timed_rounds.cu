#include "grader/core/timed_rounds.cuh"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <vector>

#include "grader/core/cuda_check.cuh"
#include "grader/core/device_buffer.cuh"
#include "grader/core/keyed_stream.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/stop_count.hpp"
#include "grader/core/student_code.hpp"
#include "grader/core/yardstick_calls.cuh"
#include "grader/runner/shared_memory.hpp"

namespace grader {
namespace {

// An output that was still being written when the runner replied differs from its final state
// in many words: 1024 random ones of each output find that with near certainty (a call 1 % short
// of done passes unnoticed with odds 0.99^1024 = 3e-5), at a snapshot small enough to copy fast.
constexpr std::size_t kWholeSnapshotWords = 1024;   // outputs up to 4 KiB: every word
constexpr std::size_t kSampledWords = 1024;         // larger ones: this many random words each
constexpr double kMemoryShare = 0.5;                // of the free GPU memory, for a round's buffers
constexpr double kTargetRoundMs = 16;               // a round's length, where memory allows
constexpr std::size_t kMostNewRegionsAMessage = 240;  // descriptors a message; Linux passes 253

__device__ std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// A fresh input: runs of `run` consecutive source elements, each run from a random start. A block
// copies whole runs, so each run's start is drawn once a thread, not once an element.
// With `handed` (the copy the runner had), the same input is made again into the checker's own
// buffer and every element the runner's copy no longer holds is counted into `changed`.
template <class T>
__global__ void fresh_input(const T* source, std::size_t n, T* input, std::size_t run, std::uint64_t seed,
                            const T* handed, unsigned long long* changed) {
  const std::size_t runs = (n + run - 1) / run;
  unsigned long long mine = 0;
  for (std::size_t r = blockIdx.x; r < runs; r += gridDim.x) {
    const std::size_t start = n > run ? mix(seed ^ r) % (n - run + 1) : 0;
    const std::size_t first = r * run, length = min(run, n - first);
    for (std::size_t j = threadIdx.x; j < length; j += blockDim.x) {
      const T value = source[min(start + j, n - 1)];
      input[first + j] = value;
      if (handed != nullptr) mine += handed[first + j] != value;
    }
  }
  if (mine != 0) atomicAdd(changed, mine);
}

template <class T>
void make_input(const void* source, std::size_t n, void* input, std::size_t run, std::uint64_t seed,
                const void* handed = nullptr, unsigned long long* changed = nullptr) {
  fresh_input<<<1024, 256>>>(static_cast<const T*>(source), n, static_cast<T*>(input), run, seed,
                             static_cast<const T*>(handed), changed);
}

__global__ void gather_words(const std::uint32_t* const* outputs, int count, std::size_t per_output,
                             const std::uint32_t* positions, std::uint32_t* snapshot) {
  const std::size_t total = per_output * count;
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::size_t word = i % per_output;
    snapshot[i] = outputs[i / per_output][positions != nullptr ? positions[word] : word];
  }
}

// Each call's own: from the seed's keyed stream (stream 1: apart from the inputs drawn from the
// seed), so a start a runner finds in the data file gives back neither the seed nor the next start.
std::uint64_t round_seed() {
  static KeyedStream starts(run_options().seed, 1);
  return starts();
}

struct PinnedWords {
  explicit PinnedWords(std::size_t count) {
    GRADER_CUDA_CHECK(cudaMallocHost(&words, std::max<std::size_t>(1, count) * sizeof(std::uint32_t)));
  }
  ~PinnedWords() { cudaFreeHost(words); }
  PinnedWords(const PinnedWords&) = delete;
  PinnedWords& operator=(const PinnedWords&) = delete;
  std::uint32_t* words = nullptr;
};

}  // namespace

namespace detail {

::testing::AssertionResult time_rounds(runner::RunnerProcess& runner, const ErasedWork& work,
                                       const RoundOptions& options, Summary& per_call_ms) {
  // The source must be memory no runner ever had: a runner that kept it mapped could change every
  // later input (and the expected results made from it) at will.
  if (runner::handed_out(work.source)) {
    return ::testing::AssertionFailure() << work.name << ": grader error, the source of the timed inputs is a "
                                         << "buffer a runner was given; time from a copy no runner has seen";
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  GRADER_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t per_call = work.input_bytes + work.output_bytes + (4 << 20);
  // K at most: options.max_calls, as many as half the free memory holds.
  const int most_calls = static_cast<int>(std::min<std::size_t>(
      options.max_calls, kMemoryShare * free_bytes / per_call));
  if (most_calls < (options.calls == 1 ? 1 : 2)) {
    return ::testing::AssertionFailure() << work.name << ": not enough free GPU memory to time it ("
                                         << free_bytes / (1 << 20) << " MiB free)";
  }
  // Buffers and recorded calls, added as a round needs more.
  std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> inputs, outputs;
  CallRecorder recorder;
  const auto add_calls = [&](int count) {
    while (static_cast<int>(inputs.size()) < count) {
      inputs.push_back(std::make_unique<DeviceBuffer<unsigned char>>(work.input_bytes));
      outputs.push_back(std::make_unique<DeviceBuffer<unsigned char>>(work.output_bytes));
      work.launch(inputs.back()->data(), outputs.back()->data());
    }
  };
  // The snapshot: which words of each output, where they are, where their copies go.
  const std::size_t words = work.output_bytes / 4;
  const bool whole = words <= kWholeSnapshotWords;
  const std::size_t per_output = whole ? words : kSampledWords;
  DeviceBuffer<const std::uint32_t*> d_outputs(static_cast<std::size_t>(most_calls));
  DeviceBuffer<std::uint32_t> d_positions(whole ? 1 : per_output);
  DeviceBuffer<std::uint32_t> d_snapshot(std::max<std::size_t>(1, per_output * most_calls));
  DeviceBuffer<std::uint32_t> d_final(std::max<std::size_t>(1, per_output * most_calls));
  // Pinned, so that the timed copy of the snapshot is one DMA, not a staged copy.
  PinnedWords snapshot(per_output * most_calls);
  // Each call is checked against its input as the checker wrote it: made again, after the round,
  // from the call's seed into memory no runner is ever given (the runner may write the inputs it
  // was handed: one that filled its input with values of no bin and zeroed its bins would pass a
  // check against that input).
  DeviceBuffer<unsigned char> own_input(work.input_bytes);
  DeviceBuffer<unsigned long long> changed(1);
  std::vector<std::uint64_t> seeds;
  std::mt19937_64 pick(std::random_device{}());
  const double fixed_cost_ms = options.subtract_channel_cost ? channel_cost_ms() : 0.0;
  double last_elapsed_ms = 0;
  const std::size_t elements = work.input_bytes / work.element_bytes;

  // One round of `calls` calls; its time per call in `ms`.
  const auto round = [&](int calls, double& ms) -> ::testing::AssertionResult {
    add_calls(calls);
    if (recorder.calls.size() != inputs.size()) {
      return ::testing::AssertionFailure() << work.name << ": grader error, " << recorder.calls.size()
                                           << " calls recorded for " << inputs.size() << " inputs";
    }
    const std::vector<runner::EncodedCall> these(recorder.calls.begin(), recorder.calls.begin() + calls);
    const runner::CallReply ready = runner.prepare(these, recorder.regions);
    if (std::string why = describe_failed_reply(work.name, ready); !why.empty()) {
      return ::testing::AssertionFailure() << why;
    }
    const auto make = work.element_bytes == 1 ? make_input<std::uint8_t> : make_input<std::uint32_t>;
    std::vector<const std::uint32_t*> output_words;
    seeds.clear();
    for (int k = 0; k < calls; ++k) {
      output_words.push_back(reinterpret_cast<const std::uint32_t*>(outputs[k]->data()));
      seeds.push_back(round_seed());
      make(work.source, elements, inputs[k]->data(), options.run_elements, seeds.back(), nullptr, nullptr);
      outputs[k]->fill_poison();
    }
    GRADER_CUDA_CHECK(cudaMemcpy(d_outputs.data(), output_words.data(), calls * sizeof(void*),
                                 cudaMemcpyHostToDevice));
    if (!whole) {
      std::vector<std::uint32_t> positions(per_output);
      for (auto& p : positions) p = static_cast<std::uint32_t>(pick() % words);
      d_positions.upload(positions);
    }
    const std::size_t taken = per_output * calls;
    std::vector<std::uint32_t> final_words(taken);
    const int gather_blocks = static_cast<int>(std::min<std::size_t>(1024, taken / 256 + 1));
    GRADER_CUDA_CHECK(cudaDeviceSynchronize());

    const int continued_before = times_continued();
    const auto start = std::chrono::steady_clock::now();
    const runner::CallReply done = runner.go();
    if (taken > 0) {
      gather_words<<<gather_blocks, 256>>>(d_outputs.data(), calls, per_output,
                                           whole ? nullptr : d_positions.data(), d_snapshot.data());
      GRADER_CUDA_CHECK(cudaMemcpy(snapshot.words, d_snapshot.data(), taken * 4, cudaMemcpyDeviceToHost));
    }
    const auto stop = std::chrono::steady_clock::now();

    if (std::string why = describe_failed_reply(work.name, done); !why.empty()) {
      return ::testing::AssertionFailure() << why;
    }
    if (times_continued() != continued_before) {
      return ::testing::AssertionFailure()
             << work.name << ": the grader was stopped and continued (SIGSTOP, SIGCONT) during a timed "
             << "round: its time measures the stop, so the measurement is void";
    }
    if (taken > 0) {
      gather_words<<<gather_blocks, 256>>>(d_outputs.data(), calls, per_output,
                                           whole ? nullptr : d_positions.data(), d_final.data());
      GRADER_CUDA_CHECK(cudaMemcpy(final_words.data(), d_final.data(), taken * 4, cudaMemcpyDeviceToHost));
      if (!std::equal(final_words.begin(), final_words.end(), snapshot.words)) {
        return ::testing::AssertionFailure()
               << work.name << ": the outputs were still changing after the code reported that the "
               << "GPU had finished (a timed call must not return before its kernels end)";
      }
    }
    for (int k = 0; k < calls; ++k) {
      GRADER_CUDA_CHECK(cudaMemsetAsync(changed.data(), 0, sizeof(unsigned long long)));
      make(work.source, elements, own_input.data(), options.run_elements, seeds[k], inputs[k]->data(),
           changed.data());
      GRADER_CUDA_CHECK(cudaGetLastError());
      unsigned long long differing = 0;
      GRADER_CUDA_CHECK(cudaMemcpy(&differing, changed.data(), sizeof differing, cudaMemcpyDeviceToHost));
      if (differing != 0) {
        return ::testing::AssertionFailure()
               << work.name << ": the input of timed call " << k + 1 << " of " << calls << " was changed "
               << "during the round (" << differing << " of " << elements << " elements): a timed call "
               << "must not write its input";
      }
      ::testing::AssertionResult right = work.verify(own_input.data(), outputs[k]->data());
      if (!right) {
        return ::testing::AssertionFailure() << work.name << ", timed call " << k + 1 << " of " << calls
                                             << " (a fresh input): " << right.message();
      }
    }
    // The channel's fixed cost comes off; never more than half the round, so that noise in that
    // cost cannot make a call look free.
    const double elapsed = std::chrono::duration<double, std::milli>(stop - start).count();
    last_elapsed_ms = elapsed;
    ms = std::max(elapsed - fixed_cost_ms, elapsed / 2) / calls;
    return ::testing::AssertionSuccess();
  };

  // The runner maps new buffers from the descriptors a message carries, at most
  // kMostNewRegionsAMessage of them: rounds of no calls map the rest in steps, untimed.
  const auto map_calls = [&](int count) -> ::testing::AssertionResult {
    add_calls(count);
    for (std::size_t upto = kMostNewRegionsAMessage; recorder.regions.size() > kMostNewRegionsAMessage;
         upto += kMostNewRegionsAMessage) {
      upto = std::min(upto, recorder.regions.size());
      const std::vector<const runner::SharedRegion*> some(recorder.regions.begin(), recorder.regions.begin() + upto);
      for (const bool go : {false, true}) {
        const runner::CallReply reply = go ? runner.go() : runner.prepare({}, some);
        if (std::string why = describe_failed_reply(work.name, reply); !why.empty()) {
          return ::testing::AssertionFailure() << why;
        }
      }
      if (upto == recorder.regions.size()) break;
    }
    return ::testing::AssertionSuccess();
  };
  // K makes a round last at least kTargetRoundMs, so that what varies in the channel's cost is a
  // small share of it. A call's time: the last round's less the channel's cost, at least a tenth
  // of it (a channel cost measured high must not make K small).
  const auto calls_for_last_round = [&](int calls) {
    if (options.calls > 0) return std::min(options.calls, most_calls);
    const double per_call = std::max(last_elapsed_ms - fixed_cost_ms, last_elapsed_ms / 10) / calls;
    return static_cast<int>(std::clamp<double>(std::ceil(kTargetRoundMs / std::max(per_call, 1e-6)), 2, most_calls));
  };
  // A first round of two calls estimates K; round 1, untimed, is the new buffers' first use. Two
  // calls are mostly channel cost, so round 1 estimates again: K grows once if it was far short.
  double ms = 0;
  if (::testing::AssertionResult r = round(std::min(2, most_calls), ms); !r) return r;
  int calls = calls_for_last_round(std::min(2, most_calls));
  for (bool resized = false;; resized = true) {
    if (::testing::AssertionResult r = map_calls(calls); !r) return r;
    if (::testing::AssertionResult r = round(calls, ms); !r) return r;
    const int better = calls_for_last_round(calls);
    if (resized || better <= calls + calls / 4) break;
    calls = better;
  }
  // Then rounds until `options.rounds` in a row agree (first_steady_window), at most twice that
  // many; if none do, the last ones count.
  const int most_rounds = options.steady_spread > 0 ? 2 * options.rounds : options.rounds;
  std::vector<double> times;
  SteadyWindow measured;
  for (int number = 2; number <= most_rounds + 1; ++number) {
    if (::testing::AssertionResult r = round(calls, ms); !r) return r;
    times.push_back(ms);
    measured = first_steady_window(times, options.rounds, options.steady_spread);
    if (measured.steady) break;
  }
  per_call_ms = measured.summary;
  return ::testing::AssertionSuccess();
}

}  // namespace detail

runner::RunnerProcess& yardstick_runner() {
  static runner::RunnerProcess runner([] {
    runner::RunnerOptions options;
    options.program = run_options().yardstick_runner_path;
    options.timeout_seconds = 60;
    if (options.program.empty()) {
      throw std::runtime_error("the grader needs GRADER_YARDSTICK_RUNNER (meson test and grade.py set it)");
    }
    return options;
  }());
  return runner;
}

double channel_cost_ms() {
  static const double cost = [] {
    DeviceBuffer<int> source(std::vector<int>(1024, 1));
    TimedWork<int, int> work{"the timing channel (one empty kernel a round)", source.data(), 1024, 1,
                             [](const int* in, int* out) { yardstick::empty_kernel(in, out); },
                             [](const int*, const int*) { return ::testing::AssertionSuccess(); }};
    RoundOptions options;
    options.rounds = 5;
    options.steady_spread = 0;  // its own rule below: the fastest round of settled batches
    options.calls = 1;
    options.subtract_channel_cost = false;
    // Batches of 5 rounds until a batch's fastest agrees with the one before within 10 %: a GPU
    // waking from idle makes the first rounds slow, and a cost measured high would flatter every
    // time it is taken from. The cost is the fastest round seen: never more than the channel costs.
    std::vector<double> fastest;
    Summary batch;
    for (int tries = 0; tries < 20; ++tries) {
      const ::testing::AssertionResult ok = time_rounds(yardstick_runner(), work, batch, options);
      if (!ok) throw std::runtime_error(std::string("the timing channel failed: ") + ok.message());
      fastest.push_back(batch.min);
      const std::size_t n = fastest.size();
      if (n >= 2 && std::abs(fastest[n - 1] - fastest[n - 2]) <= 0.1 * fastest[n - 2]) break;
    }
    return *std::min_element(fastest.begin(), fastest.end());
  }();
  return cost;
}

}  // namespace grader
