// Device memory that two processes see: the checker allocates every buffer it hands to student
// code this way and sends the runner a file descriptor for it; the runner maps the same memory at
// an address of its own. On a GPU: CUDA's virtual memory management (cuMemCreate with POSIX file
// descriptor handles), which works across PID and IPC namespaces, so the runner can be sandboxed.
// On the CPU backend: memfd shared memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace grader::runner {

struct SharedRegion {
  std::uint64_t id;    // unique in this checker run
  char* base;          // the checker's address
  std::size_t bytes;   // as mapped (rounded up to the allocation granularity)
  int fd;              // what the runner maps; owned by the registry
};

// ---- checker side -----------------------------------------------------------------------------
// Throws std::runtime_error naming what failed (e.g. a GPU or driver without this kind of
// sharing), so the test reports it instead of grading in a weaker mode.
void* allocate_shared(std::size_t bytes);
void free_shared(void* base) noexcept;
// The live region holding address `p`, or nullptr.
const SharedRegion* find_shared(const void* p);
// Regions freed since the last call: the runner unmaps them.
std::vector<std::uint64_t> take_released_regions();
// A runner was sent region `id`'s descriptor (RunnerProcess does this): from then on that runner,
// and anything it leaves behind, may write the memory until it is freed.
void note_handed_out(std::uint64_t id);
// Whether the live region holding `p` was ever handed to a runner: memory the checker trusts (the
// source its timed inputs are made from) must not be.
bool handed_out(const void* p);

// ---- runner side ------------------------------------------------------------------------------
void* map_shared(int fd, std::size_t bytes);  // takes ownership of fd; throws std::runtime_error
void unmap_shared(void* base, std::size_t bytes) noexcept;

// ---- per backend (shared_memory_cuda.cu, shared_memory_cpu.cpp) ------------------------------
struct Exported {
  char* base;
  std::size_t bytes;
  int fd;
};
Exported export_new_allocation(std::size_t bytes);
void release_exported(const Exported& allocation) noexcept;

}  // namespace grader::runner
