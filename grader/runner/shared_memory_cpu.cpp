// Shared "device" memory on the CPU backend: a memfd per buffer, mapped by both processes and
// registered with the backend so its cudaMemcpy and cudaMemset accept it as device memory.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cpu_backend/control.hpp"
#include "grader/runner/shared_memory.hpp"

namespace grader::runner {
namespace {

// Inaccessible address space on both sides of each buffer: a kernel that runs past a buffer's end
// (a missing i < n check) faults at once, as it would past a cudaMalloc'd block, instead of
// reading and writing the next mapping.
constexpr std::size_t kGuardBytes = std::size_t{64} << 20;

std::size_t page_rounded(std::size_t bytes) {
  const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string("shared buffer: ") + what + ": " + std::strerror(errno));
}

char* map_fd(int fd, std::size_t bytes) {
  void* reserved = mmap(nullptr, bytes + 2 * kGuardBytes, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) fail("mmap (reserve)");
  char* inside = static_cast<char*>(reserved) + kGuardBytes;
  if (mmap(inside, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
    munmap(reserved, bytes + 2 * kGuardBytes);
    fail("mmap");
  }
  cpu_backend::register_external_device_memory(inside, bytes);
  return inside;
}

}  // namespace

Exported export_new_allocation(std::size_t bytes) {
  bytes = page_rounded(bytes);
  const int fd = memfd_create("grader-buffer", MFD_CLOEXEC);
  if (fd < 0) fail("memfd_create");
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    fail("ftruncate");
  }
  return {map_fd(fd, bytes), bytes, fd};
}

void release_exported(const Exported& allocation) noexcept {
  unmap_shared(allocation.base, allocation.bytes);
  close(allocation.fd);
}

void* map_shared(int fd, std::size_t bytes) {
  char* p = map_fd(fd, bytes);
  close(fd);
  return p;
}

void unmap_shared(void* base, std::size_t bytes) noexcept {
  cpu_backend::unregister_external_device_memory(base);
  munmap(static_cast<char*>(base) - kGuardBytes, bytes + 2 * kGuardBytes);
}

}  // namespace grader::runner
