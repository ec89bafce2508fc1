// The runner: the student's code, this loop and nothing else of the grader. It maps the buffers
// the checker shares, calls the functions the checker names, and reports how each call ended.
// It never sees a seed, an expected value or a verdict, and nothing it prints is graded.
#include <cuda_runtime.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <typeinfo>

#include "grader/runner/channel.hpp"
#include "grader/runner/counters.hpp"
#include "grader/runner/device_output.hpp"
#include "grader/runner/evidence.hpp"
#include "grader/runner/table.hpp"
#include "grader/runner/shared_memory.hpp"
#ifdef CUDA_CPU_BACKEND
#include "cpu_backend/control.hpp"
#endif

namespace grader::runner {

// How often this process was continued after a stop (SIGCONT): counted in the grader's runner.
std::atomic<int> times_continued{0};

namespace {

struct Reply {
  Outcome outcome = Outcome::kOk;
  int cuda_error = 0;
  std::string text;
  std::string exception_type;
  std::vector<char> value;
  bool exiting = false;  // a sticky CUDA error: this runner is done
};

class Runner {
 public:
  explicit Runner(int fd) : channel_(fd) {
    for (const Exposed& e : exposed_functions()) table_[e.name] = &e;
  }

  int serve() {
    Writer hello;  // main() is reached: what ran before it is done (process.cpp waits)
    hello.put(Message::kReady);
    if (!channel_.send(hello.bytes())) return 0;
    start_counting();
    bound_device_output();
    for (;;) {
      Packet packet;
      if (channel_.receive(packet, -1) != Channel::Received::kPacket) return 0;
      Reader in(packet.bytes);
      const auto kind = in.get<Message>();
      if (kind == Message::kQuit) return 0;
      if (kind == Message::kEvidence) {
        evidence_asked_ = true;
        const bool races = in.get<std::uint8_t>() != 0;
        if (!start_evidence(evidence_unavailable_, races) && evidence_unavailable_.empty()) {
          evidence_unavailable_ = "evidence mode did not start";
        }
        continue;
      }
      Reply reply;
      std::vector<BoundCall> calls;
      std::vector<std::vector<char>> results;
      try {
        if (kind != Message::kCall && kind != Message::kRound) throw ProtocolError("unexpected message");
        const std::uint32_t count = kind == Message::kCall ? 1 : in.get<std::uint32_t>();
        const std::vector<MappedRegion> regions = update_regions(in, packet.fds);
        results.resize(count);
        for (std::uint32_t i = 0; i < count; ++i) calls.push_back(bind(in, regions, results[i]));
      } catch (const std::exception& e) {
        reply.outcome = Outcome::kBadCall;
        reply.text = e.what();
        send(reply, {});
        continue;
      }
      pause_counting(kind == Message::kRound);
      const int continued_before = times_continued.load();
      if (kind == Message::kRound) {
        Writer ready;
        ready.put(Message::kReady);
        channel_.send(ready.bytes());
        Packet go;
        if (channel_.receive(go, -1, /*spin=*/true) != Channel::Received::kPacket) return 0;
      }
      // A round's calls are not counted: reading the counters would add to the measured time.
      if (kind == Message::kCall) read_and_reset_counters();
      run(calls, reply);
      refuse_host_memory(reply);
      refuse_device_output(reply, calls.size());
      if (times_continued.load() != continued_before) {
        reply.outcome = Outcome::kException;
        reply.exception_type = "stopped by a signal";
        reply.text = "this runner was stopped and continued (SIGSTOP, SIGCONT) while it ran the call: "
                     "another process of this user paused it, and its timing is void";
      }
      if (!results.empty()) reply.value = results.back();
      send(reply, kind == Message::kCall ? read_and_reset_counters() : Counters{},
           kind == Message::kCall ? evidence() : Evidence{});
      if (reply.exiting) return 1;
    }
  }

 private:
  // The call's region table: released regions unmapped, new ones mapped from their descriptors.
  std::vector<MappedRegion> update_regions(Reader& in, const std::vector<int>& fds) {
    const auto schedule_seed = in.get<std::uint64_t>();
#ifdef CUDA_CPU_BACKEND
    if (schedule_seed != kKeepSchedule) cpu_backend::set_schedule_seed(schedule_seed);
#else
    (void)schedule_seed;
#endif
    for (auto n = in.get<std::uint32_t>(); n > 0; --n) {
      auto found = mapped_.find(in.get<std::uint64_t>());
      if (found == mapped_.end()) continue;
      unmap_shared(found->second.base, found->second.bytes);
      mapped_.erase(found);
    }
    std::vector<MappedRegion> regions;
    for (auto n = in.get<std::uint32_t>(); n > 0; --n) {
      const auto id = in.get<std::uint64_t>();
      const auto bytes = in.get<std::uint64_t>();
      const auto fd_index = in.get<std::int32_t>();
      auto found = mapped_.find(id);
      if (found == mapped_.end()) {
        if (fd_index < 0 || static_cast<std::size_t>(fd_index) >= fds.size()) {
          throw ProtocolError("a buffer this runner has not mapped");
        }
        found = mapped_.emplace(id, MappedRegion{static_cast<char*>(map_shared(fds[fd_index], bytes)),
                                                 bytes}).first;
      }
      regions.push_back(found->second);
    }
    return regions;
  }

  BoundCall bind(Reader& in, const std::vector<MappedRegion>& regions, std::vector<char>& result) {
    const std::string name = in.get_string();
    const std::vector<char> arguments = in.get_bytes();
    auto found = table_.find(name);
    if (found == table_.end()) throw ProtocolError("no function " + name + " in this runner");
    Reader args(arguments);
    return found->second->bind(args, regions, result);
  }

  static void run(std::vector<BoundCall>& calls, Reply& reply) {
    try {
      for (BoundCall& call : calls) call();
    } catch (const std::exception& e) {
      reply.outcome = Outcome::kException;
      reply.exception_type = typeid(e).name();
      reply.text = e.what();
    } catch (...) {
      reply.outcome = Outcome::kException;
      reply.exception_type = "unknown";
      reply.text = "something that is not a std::exception";
    }
    cudaError_t status = cudaGetLastError();
    if (status != cudaSuccess) {
      if (reply.outcome == Outcome::kOk) reply.outcome = Outcome::kLaunchError;
    } else {
      status = cudaDeviceSynchronize();
      if (status != cudaSuccess && reply.outcome == Outcome::kOk) reply.outcome = Outcome::kRunError;
    }
    if (status == cudaSuccess) return;
    reply.cuda_error = static_cast<int>(status);
#ifdef CUDA_CPU_BACKEND
    if (reply.outcome != Outcome::kException) reply.text = cpu_backend::last_fault_message();
#endif
    // A sticky error leaves this process's CUDA context unusable: report it, then end, and the
    // checker starts a fresh runner for its next call.
    reply.exiting = cudaDeviceSynchronize() != cudaSuccess;
  }

  // Host memory the GPU can read (pinned, mapped, registered, managed) lets a kernel hand the
  // samples to the host, where they are counted and the counters see nothing: once any of the
  // student's code made some, every call of this runner fails, saying why.
  static void refuse_host_memory(Reply& reply) {
    const std::string problem = host_memory_problem();
    if (problem.empty()) return;
    reply.outcome = Outcome::kException;
    reply.exception_type = "host memory the GPU can read";
    reply.text = problem;
  }

  // What this call's kernels executed, where the checker asked for evidence.
  Evidence evidence() {
    if (!evidence_asked_) return {};
    Evidence found = take_evidence();
    if (!found.collected && found.unavailable.empty()) found.unavailable = evidence_unavailable_;
    return found;
  }

  // What graded kernels printed, over the cap (device_output.hpp), fails the call or round.
  static void refuse_device_output(Reply& reply, std::size_t calls) {
    const std::string problem = device_output_problem(calls);
    if (problem.empty() || reply.outcome == Outcome::kException) return;
    reply.outcome = Outcome::kException;
    reply.exception_type = "output from kernels";
    reply.text = problem;
  }

  void send(const Reply& reply, const Counters& counters, const Evidence& evidence = {}) {
    Writer out;
    out.put(Message::kReply);
    out.put(reply.outcome);
    out.put(static_cast<std::int32_t>(reply.cuda_error));
    out.put_string(reply.text);
    out.put_string(reply.exception_type);
    out.put_bytes(reply.value);
    out.put(counters.kernels);
    out.put(counters.device_to_host_bytes);
    out.put(static_cast<std::uint32_t>(counters.kernel_names.size()));
    for (const std::string& name : counters.kernel_names) out.put_string(name);
    out.put(static_cast<std::uint8_t>(reply.exiting));
    put_evidence(out, evidence);
    channel_.send(out.bytes());
  }

  Channel channel_;
  bool evidence_asked_ = false;
  std::string evidence_unavailable_;
  std::map<std::string, const Exposed*> table_;
  std::map<std::uint64_t, MappedRegion> mapped_;
};

}  // namespace
}  // namespace grader::runner

#ifdef CUDA_CPU_BACKEND
// The CPU backend refuses every host-visible allocation in a program that defines this (its
// host_work.cpp): in a runner, before main() as after.
extern "C" void cpu_backend_refuses_host_memory() {}
#endif

namespace grader::runner {

// The grader's own runner (every function it serves is the grader's: the yardsticks) is out of
// reach of a student's runner of the same user beside it: not dumpable (no ptrace, no reading
// its memory through /proc), not stopped by terminal signals, and a stop by SIGSTOP, which
// cannot be refused, is seen by its SIGCONT and voids the call or round it fell in (the checker
// then fails the speed test it was timing for, and gives it nothing). A signal that ends it
// fails that test too. A student's runner stays as it is, for the sanitizer that runs it.
void harden_if_the_graders() {
  const std::vector<Exposed>& table = exposed_functions();
  const bool graders = !table.empty() && std::all_of(table.begin(), table.end(), [](const Exposed& e) {
    return e.name.compare(0, 8, "grader::") == 0;
  });
  if (!graders) return;
  prctl(PR_SET_DUMPABLE, 0);
  for (int terminal_stop : {SIGTSTP, SIGTTIN, SIGTTOU}) std::signal(terminal_stop, SIG_IGN);
  struct sigaction on_continue = {};
  on_continue.sa_handler = [](int) { times_continued.fetch_add(1); };
  on_continue.sa_flags = SA_RESTART;
  sigaction(SIGCONT, &on_continue, nullptr);
}

}  // namespace grader::runner

namespace {

// --device-report: what the GPU lets kernels reach on the host, for the instructor.
int device_report() {
  int pageable = -1, uses_host_tables = -1, managed = -1, map_host = -1;
  const cudaError_t status = cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
  cudaDeviceGetAttribute(&uses_host_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0);
  cudaDeviceGetAttribute(&managed, cudaDevAttrConcurrentManagedAccess, 0);
  cudaDeviceGetAttribute(&map_host, cudaDevAttrCanMapHostMemory, 0);
  if (status != cudaSuccess) {
    std::printf("no device: %s\n", cudaGetErrorString(status));
    return 1;
  }
  std::printf("pageable memory access: %d\nuses host page tables: %d\nconcurrent managed access: %d\n"
              "can map host memory: %d\n", pageable, uses_host_tables, managed, map_host);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  grader::runner::harden_if_the_graders();
  int fd = -1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--channel-fd=", 13) == 0) fd = std::atoi(argv[i] + 13);
    if (std::strcmp(argv[i], "--device-report") == 0) return device_report();
  }
  if (fd < 0) {
    std::fprintf(stderr,
                 "%s runs your lab code for the grader and is started by it; run the lab's test "
                 "program instead (meson test --suite labNN, or python3 grader/grade.py)\n",
                 argv[0]);
    return 2;
  }
  return grader::runner::Runner(fd).serve();
}
