// The counting mode of the CPU backend: per kernel launch, what Nsight Compute counts on a GPU
// (README.md of this folder's parent, "Counting mode"). A program gets it by compiling its .cu
// files (after transform_launches.py --counting) with -fsanitize=thread and linking this library
// instead of libtsan: GCC then calls the __tsan_* functions of tsan_runtime.cpp at every memory
// access it cannot prove private, and they record the accesses of CUDA threads to global and
// shared memory. Lanes of a warp are grouped into warp-level requests, site by site: the k-th
// execution of one access instruction by each lane of a warp is one request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cpu_backend/vector_types.hpp"
#include "races.hpp"

namespace cpu_backend::counting {

// shuffle: a lane's call of a shuffle intrinsic (__shfl*_sync), which moves data between lanes
// without memory; its site counts lanes and calls, nothing of memory.
enum class access_kind : std::uint8_t { global_load, global_store, global_atomic, shared_load, shared_store, shared_atomic,
                                        shuffle };
const char* kind_name(access_kind kind);  // "global_load", ...

// One access instruction of the kernel (one call site of a __tsan_* hook, a part of a copy
// wider than 16 bytes counted as its own site), summed over every warp of every block.
struct site_counts {
    std::uintptr_t pc = 0;       // the hook's return address, relative to the program's load base
    std::string location;        // "file:line", filled by resolve_locations()
    access_kind kind = access_kind::global_load;
    unsigned bytes = 0;          // bytes per lane (1, 2, 4, 8, 16)
    std::uint64_t requests = 0;  // warp-level instructions executed
    std::uint64_t lanes = 0;     // thread-level executions (sum of active lanes over requests)
    std::uint64_t partial_requests = 0;  // requests with fewer active lanes than the warp has
    std::uint64_t sectors = 0;     // global: distinct 32-byte sectors per request, summed
    std::uint64_t wavefronts = 0;  // shared: sum over phases of the most distinct words in a bank
    std::uint64_t bank_conflicts = 0;      // shared: wavefronts beyond one per active phase
    std::uint64_t distinct_addresses = 0;  // atomics: distinct addresses per request, summed
};

// A launch's counters, one list: the struct's fields and the names records.cpp writes them under
// (grader/counting/metrics.py names the Nsight Compute metrics that count the same on a GPU).
#define COUNTING_COUNTERS(X)                                                                       \
    X(global_load_requests) X(global_load_sectors) X(global_store_requests) X(global_store_sectors) \
    X(shared_load_requests) X(shared_load_wavefronts) X(shared_load_bank_conflicts)                 \
    X(shared_store_requests) X(shared_store_wavefronts) X(shared_store_bank_conflicts)              \
    X(global_atomic_requests) X(global_atomic_operations) X(global_atomic_distinct_addresses)       \
    X(shared_atomic_requests) X(shared_atomic_operations) X(shared_atomic_distinct_addresses)       \
    X(warp_instructions) X(active_lanes) X(partial_warp_instructions) X(shuffle_lanes)

struct launch_totals {
#define COUNTING_FIELD(name) std::uint64_t name = 0;
    COUNTING_COUNTERS(COUNTING_FIELD)
#undef COUNTING_FIELD
};

struct launch_record {
    std::string kernel;      // as the launch names it
    std::string symbol;      // the kernel function's (mangled) name, "" where it is not known
    std::string file;        // where the launch is
    int line = 0;
    std::string label;       // set_label() before the launch, else empty
    dim3 grid, block;
    std::size_t dynamic_shared_bytes = 0;
    std::uint64_t blocks = 0;
    std::uint64_t barriers = 0;            // __syncthreads() completed, summed over blocks
    std::uint64_t max_barriers_per_block = 0;
    bool faulted = false;
    launch_totals totals;
    std::vector<site_counts> sites;        // ordered by pc
};

// One warp-level access of the warp CUDA_CPU_BACKEND_TRACE names (trace.cpp).
struct traced_access {
    std::uintptr_t pc = 0;       // as site_counts::pc
    std::string location;        // as site_counts::location
    access_kind kind = access_kind::global_load;
    unsigned bytes = 0;          // bytes per lane (the widest lane's)
    const char* region = "global";  // "global", or the shared memory: "dynamic" or "static"
    std::string variable;        // static: the __shared__ variable of the lowest lane's byte
    std::uint32_t mask = 0;      // the lanes that took part
    // Per lane in mask: global, the address; dynamic, the byte offset into the block's dynamic
    // shared memory; static, the byte offset from the start of `variable`.
    std::uintptr_t address[32] = {};
};

// CUDA_CPU_BACKEND_TRACE=LABEL[:BLOCK:WARP] (block 0 warp 0 by default; BLOCK the linear block
// index): the first 64 warp-level accesses of that warp in the first launch labelled LABEL, in
// the order their first lane made them.
struct warp_trace {
    std::string label;
    std::uint64_t block = 0;
    std::uint32_t warp = 0;
    std::string kernel;          // of the traced launch; empty while none ran
    std::vector<traced_access> accesses;
};

// Every launch so far, in launch order (copies; safe between launches).
std::vector<launch_record> records();
// Forgets the launches so far, and the race witnesses (races.hpp).
void clear_records();
// A name for the launches that follow (e.g. the lab function that makes them).
void set_label(const std::string& label);
// The warp trace, when CUDA_CPU_BACKEND_TRACE asks for one (a copy; safe between launches).
std::optional<warp_trace> traced_warp();
// Fills site_counts::location (and the trace's) with addr2line (once per program; "?" when it cannot).
void resolve_locations(std::vector<launch_record>& records, warp_trace* trace = nullptr);
// The records as JSON (schema "cpu-backend-counts/v2", documented in the backend's README.md),
// with the trace under "trace" when given.
std::string to_json(const std::vector<launch_record>& records, const warp_trace* trace = nullptr);
// At exit, a program linked with the counting library writes to_json(records(), trace) to the
// file named by CUDA_CPU_BACKEND_COUNTS, if set.

// What `extern __shared__` becomes under transform_launches.py --counting: the block's dynamic
// shared memory, noting that the pointer variable itself is not shared memory.
void* dynamic_shared_memory_for(const void* pointer_variable);

}  // namespace cpu_backend::counting
