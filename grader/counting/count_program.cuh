// What every lab's count program shares (grader/counting/count_kernels.py builds them): options,
// inputs made from a seed, device buffers, and the loop that runs each graded function once and
// prints a checksum of what it wrote. The same file compiles with nvcc, so that
// compare_ncu.py can run the very same launches under Nsight Compute on a GPU.
//   labNN_count [--n=65536] [--input=uniform|equal|ramp] [--seed=1] [--only=NAME]
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace count_program {

struct Options {
  long long n = 65536;
  std::string input = "uniform";
  std::uint64_t seed = 1;
  std::string only;
};

inline Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) { return a.substr(std::strlen(key)); };
    if (a.rfind("--n=", 0) == 0) o.n = std::atoll(value("--n=").c_str());
    else if (a.rfind("--input=", 0) == 0) o.input = value("--input=");
    else if (a.rfind("--seed=", 0) == 0) o.seed = std::strtoull(value("--seed=").c_str(), nullptr, 0);
    else if (a.rfind("--only=", 0) == 0) o.only = value("--only=");
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      std::exit(2);
    }
  }
  if (o.input != "uniform" && o.input != "equal" && o.input != "ramp") {
    std::fprintf(stderr, "--input must be uniform, equal or ramp\n");
    std::exit(2);
  }
  return o;
}

// splitmix64: the same values on every machine.
inline std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// n values in [0, limit): uniform random, all equal (limit / 2: every atomic on one bin), or a
// ramp (i mod limit: consecutive lanes on consecutive bins).
template <class T>
std::vector<T> values(const Options& o, long long n, long long limit, long long offset = 0) {
  std::vector<T> v(static_cast<std::size_t>(n));
  std::uint64_t state = o.seed;
  for (long long i = 0; i < n; ++i) {
    long long x = o.input == "equal" ? limit / 2
                  : o.input == "ramp" ? i % limit
                                      : static_cast<long long>(next_random(state) % static_cast<std::uint64_t>(limit));
    v[static_cast<std::size_t>(i)] = static_cast<T>(x + offset);
  }
  return v;
}

inline void check(cudaError_t error, const char* what) {
  if (error == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(error));
  std::exit(1);
}

template <class T>
struct Buffer {
  T* d = nullptr;
  std::size_t count = 0;
  explicit Buffer(std::size_t n) : count(n) {
    check(cudaMalloc(&d, (n ? n : 1) * sizeof(T)), "cudaMalloc");
    check(cudaMemset(d, 0, (n ? n : 1) * sizeof(T)), "cudaMemset");
  }
  explicit Buffer(const std::vector<T>& host) : Buffer(host.size()) {
    check(cudaMemcpy(d, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { cudaFree(d); }
  std::vector<T> download() const {
    std::vector<T> host(count);
    check(cudaMemcpy(host.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }
};

// FNV-1a over the bytes: the line the bit-identity test compares between builds.
template <class T>
void print_checksum(const char* call, const Buffer<T>& out) {
  const std::vector<T> host = out.download();
  std::uint64_t hash = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(host.data());
  for (std::size_t i = 0; i < host.size() * sizeof(T); ++i) hash = (hash ^ bytes[i]) * 0x100000001b3ull;
  std::printf("output %s %016llx\n", call, static_cast<unsigned long long>(hash));
}

struct Call {
  const char* name;
  std::function<void()> run;  // sets up, launches, prints the checksum of the output
};

// Runs each call (or the one --only names) in order; each one's launches carry its name.
inline int run_calls(const Options& o, const std::vector<Call>& calls) {
  int ran = 0;
  for (const Call& call : calls) {
    if (!o.only.empty() && o.only != call.name) continue;
#ifdef CUDA_CPU_BACKEND_COUNTING
    cpu_backend::counting::set_label(call.name);
#endif
    std::printf("call %s\n", call.name);
    try {
      call.run();
    } catch (const std::exception& error) {
      std::printf("call %s threw: %s\n", call.name, error.what());
    }
    const cudaError_t error = cudaDeviceSynchronize();
    if (error != cudaSuccess) std::printf("call %s failed: %s\n", call.name, cudaGetErrorString(error));
    cudaGetLastError();
    ++ran;
  }
  if (ran == 0) {
    std::fprintf(stderr, "no call named %s\n", o.only.c_str());
    return 2;
  }
  return 0;
}

}  // namespace count_program
