// The checker-runner protocol's byte format, used by both sides: a message is plain values
// appended in order, read back in the same order. Nothing here trusts the bytes it reads: a short
// or malformed message throws ProtocolError.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace grader::runner {

class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What each message is; the first value of every message.
// The schedule seed of a call that keeps the runner's CPU-backend schedule as it is.
constexpr std::uint64_t kKeepSchedule = ~std::uint64_t{0};

enum class Message : std::uint32_t {
  kCall = 1,    // checker -> runner: run one function now, wait for it, reply
  kReply,       // runner -> checker: how the call ended, its return value
  kRound,       // checker -> runner: the calls of a timed round; map their buffers, reply kReady
  kReady,       // runner -> checker
  kGo,          // checker -> runner: run the round's calls back to back, synchronize, reply
  kQuit,        // checker -> runner: exit
  kEvidence,    // checker -> runner, before its first call: evidence mode on (evidence.hpp)
};

// How a call ended, as the runner saw it.
enum class Outcome : std::uint32_t {
  kOk = 0,
  kLaunchError,   // cudaGetLastError() after the function returned
  kRunError,      // cudaDeviceSynchronize() after it
  kException,     // the function threw
  kBadCall,       // the runner could not decode the call (a grader bug, or a tampered runner)
};

class Writer {
 public:
  template <class T>
  void put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values travel");
    append(&value, sizeof(T));
  }
  void put_string(const std::string& text) {
    put(static_cast<std::uint64_t>(text.size()));
    append(text.data(), text.size());
  }
  void put_bytes(const std::vector<char>& more) {
    put(static_cast<std::uint64_t>(more.size()));
    append(more.data(), more.size());
  }
  const std::vector<char>& bytes() const { return bytes_; }
  std::vector<char>& bytes() { return bytes_; }

 private:
  // resize and memcpy, not vector::insert of a range: g++ 12 at -O3 reports a false
  // -Wstringop-overflow for the insert (a 60-line backtrace in every first build).
  void append(const void* data, std::size_t size) {
    if (size == 0) return;
    const std::size_t at = bytes_.size();
    bytes_.resize(at + size);
    std::memcpy(bytes_.data() + at, data, size);
  }
  std::vector<char> bytes_;
};

class Reader {
 public:
  Reader(const char* data, std::size_t size) : next_(data), end_(data + size) {}
  explicit Reader(const std::vector<char>& bytes) : Reader(bytes.data(), bytes.size()) {}

  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>, "only plain values travel");
    need(sizeof(T));
    T value;
    std::memcpy(&value, next_, sizeof(T));
    next_ += sizeof(T);
    return value;
  }
  std::string get_string() {
    const auto size = get<std::uint64_t>();
    need(size);
    std::string text(next_, next_ + size);
    next_ += size;
    return text;
  }
  std::vector<char> get_bytes() {
    const auto size = get<std::uint64_t>();
    need(size);
    std::vector<char> bytes(next_, next_ + size);
    next_ += size;
    return bytes;
  }
  bool at_end() const { return next_ == end_; }

 private:
  void need(std::uint64_t size) const {
    if (size > static_cast<std::uint64_t>(end_ - next_)) throw ProtocolError("message too short");
  }
  const char* next_;
  const char* end_;
};

}  // namespace grader::runner
