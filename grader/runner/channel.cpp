#include "grader/runner/channel.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

namespace grader::runner {
namespace {

constexpr std::size_t kMaxMessage = 1 << 20;  // a round of calls is a few KiB
constexpr std::size_t kMaxFds = 250;  // Linux takes at most 253 descriptors a message (SCM_MAX_FD)

}  // namespace

Channel::~Channel() { close(); }

Channel& Channel::operator=(Channel&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = other.fd_;
    buffer_ = std::move(other.buffer_);
    control_ = std::move(other.control_);
    other.fd_ = -1;
  }
  return *this;
}

void Channel::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void make_channel_pair(int fds[2]) {
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::system_error(errno, std::generic_category(), "socketpair");
  }
}

bool Channel::send(const std::vector<char>& bytes, const std::vector<int>& fds) {
  if (fd_ < 0) return false;
  if (bytes.size() > kMaxMessage || fds.size() > kMaxFds) throw ProtocolError("message too large");
  iovec io{const_cast<char*>(bytes.data()), bytes.size()};
  msghdr header{};
  header.msg_iov = &io;
  header.msg_iovlen = 1;
  std::vector<char> control(CMSG_SPACE(sizeof(int) * kMaxFds));
  if (!fds.empty()) {
    header.msg_control = control.data();
    header.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* c = CMSG_FIRSTHDR(&header);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
  }
  for (;;) {
    const ssize_t sent = sendmsg(fd_, &header, MSG_NOSIGNAL);
    if (sent == static_cast<ssize_t>(bytes.size())) return true;
    if (sent < 0 && errno == EINTR) continue;
    return false;
  }
}

Channel::Received Channel::receive(Packet& packet, int timeout_ms, bool spin) {
  packet.bytes.clear();
  packet.fds.clear();
  buffer_.resize(kMaxMessage);
  control_.resize(CMSG_SPACE(sizeof(int) * kMaxFds));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (fd_ < 0) return Received::kClosed;
    if (!spin) {
      pollfd p{fd_, POLLIN, 0};
      int wait = timeout_ms;
      if (timeout_ms >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now()).count();
        wait = left > 0 ? static_cast<int>(left) : 0;
      }
      const int ready = poll(&p, 1, wait);
      if (ready < 0 && errno == EINTR) continue;
      if (ready == 0) return Received::kTimedOut;
    }
    iovec io{buffer_.data(), buffer_.size()};
    msghdr header{};
    header.msg_iov = &io;
    header.msg_iovlen = 1;
    header.msg_control = control_.data();
    header.msg_controllen = control_.size();
    const ssize_t got = recvmsg(fd_, &header, MSG_CMSG_CLOEXEC | (spin ? MSG_DONTWAIT : 0));
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) {
      if (spin && timeout_ms >= 0 && std::chrono::steady_clock::now() >= deadline) {
        return Received::kTimedOut;
      }
      continue;
    }
    if (got <= 0) return Received::kClosed;
    for (cmsghdr* c = CMSG_FIRSTHDR(&header); c != nullptr; c = CMSG_NXTHDR(&header, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        const std::size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        const int* received = reinterpret_cast<const int*>(CMSG_DATA(c));
        packet.fds.assign(received, received + count);
      }
    }
    if (header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
      for (int fd : packet.fds) ::close(fd);
      throw ProtocolError("message truncated");
    }
    packet.bytes.assign(buffer_.begin(), buffer_.begin() + got);
    return Received::kPacket;
  }
}

}  // namespace grader::runner
