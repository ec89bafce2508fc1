// One end of the checker-runner connection: a Unix SOCK_SEQPACKET socket, so every send arrives
// as one whole message, with file descriptors (the shared buffers) carried alongside.
#pragma once
#include <utility>
#include <vector>

#include "grader/runner/wire.hpp"

namespace grader::runner {

struct Packet {
  std::vector<char> bytes;
  std::vector<int> fds;  // received descriptors, owned by the receiver
};

class Channel {
 public:
  explicit Channel(int fd = -1) : fd_(fd) {}
  ~Channel();
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  Channel(Channel&& other) noexcept
      : fd_(other.fd_), buffer_(std::move(other.buffer_)), control_(std::move(other.control_)) {
    other.fd_ = -1;
  }
  Channel& operator=(Channel&& other) noexcept;

  int fd() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void close();

  // False when the other end is gone.
  bool send(const std::vector<char>& bytes, const std::vector<int>& fds = {});
  // Waits at most `timeout_ms` (< 0: forever; 0 with `spin`: polls without sleeping, for the timed
  // rounds, where a sleeping receiver would add its wake-up to every measurement).
  enum class Received { kPacket, kClosed, kTimedOut };
  Received receive(Packet& packet, int timeout_ms, bool spin = false);

 private:
  int fd_;
  // Where messages land, allocated once: a timed round's reply must not wait for a megabyte to be
  // allocated, filled and freed (MALLOC_PERTURB_, which meson test sets, fills both ways).
  std::vector<char> buffer_;
  std::vector<char> control_;
};

// A connected pair: [0] for this process, [1] for the child.
void make_channel_pair(int fds[2]);

}  // namespace grader::runner
