// The runner: the student's code, this loop and nothing else of the grader. It maps the buffers
// the checker shares, calls the functions the checker names, and reports how each call ended.
// It never sees a seed, an expected value or a verdict, and nothing it prints is graded.
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <string>
#include <typeinfo>

#include "grader/remote/channel.hpp"
#include "grader/remote/runner_counters.hpp"
#include "grader/remote/runner_table.hpp"
#include "grader/remote/shared_memory.hpp"
#ifdef CUDA_CPU_BACKEND
#include "cpu_backend/control.hpp"
#endif

namespace grader::remote {
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
    Writer hello;  // main() is reached: what ran before it is done (runner_process.cpp waits)
    hello.put(Message::kReady);
    if (!channel_.send(hello.bytes())) return 0;
    start_counting();
    for (;;) {
      Packet packet;
      if (channel_.receive(packet, -1) != Channel::Received::kPacket) return 0;
      Reader in(packet.bytes);
      const auto kind = in.get<Message>();
      if (kind == Message::kQuit) return 0;
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
      if (!results.empty()) reply.value = results.back();
      send(reply, kind == Message::kCall ? read_and_reset_counters() : Counters{});
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

  void send(const Reply& reply, const Counters& counters) {
    Writer out;
    out.put(Message::kReply);
    out.put(reply.outcome);
    out.put(static_cast<std::int32_t>(reply.cuda_error));
    out.put_string(reply.text);
    out.put_string(reply.exception_type);
    out.put_bytes(reply.value);
    out.put(counters.kernels);
    out.put(counters.device_to_host_bytes);
    out.put(static_cast<std::uint8_t>(reply.exiting));
    channel_.send(out.bytes());
  }

  Channel channel_;
  std::map<std::string, const Exposed*> table_;
  std::map<std::uint64_t, MappedRegion> mapped_;
};

}  // namespace
}  // namespace grader::remote

int main(int argc, char** argv) {
  int fd = -1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--channel-fd=", 13) == 0) fd = std::atoi(argv[i] + 13);
  }
  if (fd < 0) {
    std::fprintf(stderr,
                 "%s runs your lab code for the grader and is started by it; run the lab's test "
                 "program instead (meson test --suite labNN, or python3 grader/grade.py)\n",
                 argv[0]);
    return 2;
  }
  return grader::remote::Runner(fd).serve();
}
