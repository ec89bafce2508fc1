// Inside the counting library: what the __tsan_* hooks call, and what the per-block recorder
// hands to the launch's records.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "access_rules.hpp"
#include "cpu_backend/launch.hpp"
#include "counting.hpp"
#include "race_detector.hpp"

namespace cpu_backend::counting::detail {

// One access by the running CUDA thread; ignored outside a block and for memory that is neither
// global (a cudaMalloc allocation, a registered variable, pinned host memory) nor the block's
// shared memory (its locals, kernel parameters, host memory). Counted (atomic_read as an atomic,
// volatile as plain) while counting is on, handed to the race detector while it is on.
void record(const void* pc, const void* address, std::size_t bytes, access_op op);
// Whether record() has anything to do: counting or race detection on; whether it counts
// (set_counting(), set_race_detection(), races.hpp).
extern bool recording;
extern bool counting_on;
// Sets both from CUDA_CPU_BACKEND_COUNTING (default: counts_from_start) and CUDA_CPU_BACKEND_RACES
// (default off) (switches.cpp).
void read_switches(bool counts_from_start);

// A site: the hook's return address, the 16-byte part of a wider copy, the kind of access.
using site_key = std::tuple<std::uintptr_t, std::uint32_t, access_kind>;
using site_map = std::map<site_key, site_counts>;

// The launch in progress (records.cpp): a finished block's counts are added to it.
void add_block(const site_map& sites, std::uint64_t barriers);
void begin_launch(const std::string& kernel, const std::string& symbol, const std::string& file, int line,
                  dim3 grid, dim3 block, std::size_t dynamic_shared_bytes);
void end_launch(bool faulted);
// set_label()'s label for the launch about to begin.
std::string launch_label();

// What the recorder does when the counting mode's launch_observer (observer.cpp) is told of a
// launch, block, barrier or shuffle; a block's start returns its [first, end) of dynamic shared
// memory and of the host thread's TLS block.
void recorder_launch_begins(const cpu_backend::detail::launch_config& config,
                            const cpu_backend::detail::kernel_site& site);
std::pair<std::pair<std::uintptr_t, std::uintptr_t>, std::pair<std::uintptr_t, std::uintptr_t>> recorder_block_begins(
    uint3 block, std::uint32_t threads, const void* dynamic_shared, std::size_t bytes);
void recorder_barrier_released();
void recorder_block_ends();
void recorder_shuffle_called(const void* pc);
// The observer installed (blocks then run on one host thread); counting from now on (observer.cpp).
void install_observer();
bool start_counting();

// The program's load base: pcs in records are relative to it (records.cpp).
std::uintptr_t load_base();

// The warp CUDA_CPU_BACKEND_TRACE follows (trace.cpp), told of launches and blocks. recorder.cpp
// numbers that warp's requests as they open (trace_next_place: 1 + the place in the trace, 0 after
// the first 64) and hands each numbered one to trace_request when it is complete.
void trace_launch_begins(const std::string& kernel, const std::string& label, dim3 grid);
void trace_launch_ends();
// The warp to follow in this block (~0u: none), on the host thread that runs the block.
std::uint32_t trace_block_begins(uint3 block, std::pair<std::uintptr_t, std::uintptr_t> dynamic_shared,
                                 std::uintptr_t tls_first);
std::uint8_t trace_next_place();
void trace_request(std::uint32_t place, const site_counts& site, const lane_access* lanes, std::size_t count);

// "file:line" of each pc (relative to the load base; a return address: the call before it), "?"
// when unknown: addr2line over the program, the innermost frame outside the backend's headers
// (locations.cpp).
std::map<std::uintptr_t, std::string> source_lines(const std::set<std::uintptr_t>& pcs);

// [first, end) of this host thread's TLS block of the program itself, {0, 0} if unknown (tls_guards.cpp).
std::pair<std::uintptr_t, std::uintptr_t> program_tls_block();
// The program's thread_local variables (its symbol table's TLS symbols): name, [first, end) offsets
// in its TLS block (tls_guards.cpp).
struct tls_symbol {
    std::string name;
    std::uintptr_t first, end;
};
std::vector<tls_symbol> tls_symbols();
// The name (mangled) of the program's function at `address`, "" where its symbol table has none.
std::string function_symbol(const void* address);
// [first, end) offsets in the program's TLS block of its thread_local guard variables (tls_guards.cpp).
std::vector<std::pair<std::uintptr_t, std::uintptr_t>> tls_guard_offsets();

}  // namespace cpu_backend::counting::detail
