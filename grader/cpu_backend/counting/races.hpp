// The counting mode's race detector (README.md of this folder's parent, "Race detector"): every
// data race of a kernel's run, whatever the order in which the CUDA threads happened to run.
// Two accesses race when they come from different CUDA threads, touch overlapping bytes of one
// block's shared memory or of global memory in one launch, at least one writes, they are not both
// strong (atomics; volatile accesses to global memory), and nothing orders them: no
// __syncthreads() between them (same block), no __syncwarp() both lanes took part in (same warp),
// no release and acquire through a __threadfence() and a strong access (README.md gives the rules
// and why). It also reports reads of shared memory that no thread of the block wrote since the
// block started (a bin nobody zeroed).
//
// A runner turns it on (set_race_detection(true)), calls a graded function, and reads races(): the
// witnesses of the launches since the last clear_records(), one per pair of source lines.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cpu_backend/vector_types.hpp"

namespace cpu_backend::counting {

enum class race_kind : std::uint8_t { read_after_write, write_after_read, write_after_write, uninitialised_read };
// "read after write", "write after read", "write after write", "uninitialised read"
const char* race_kind_name(race_kind kind);

// One side of a race: an access by one CUDA thread.
struct race_access {
    std::string location;   // "file:line" in the student's file, "?" when unknown
    std::string source;     // that line's text, trimmed ("" when the file cannot be read)
    std::uintptr_t pc = 0;  // the access's return address, relative to the program's load base
    // "read", "write", "atomic", "volatile read", "volatile write"; a plain read and write of the
    // same bytes by the same thread on the same line (x++) make read_modify_write true
    std::string operation;
    bool read_modify_write = false;
    dim3 block, thread;  // blockIdx, threadIdx
    std::uint64_t block_linear = 0;
    std::uint32_t thread_linear = 0, warp = 0, lane = 0;
    // The barrier interval: the __syncthreads() the thread passed last before the access and the
    // next one it reached ("file:line"); "" for the kernel's start and its end.
    std::string barrier_before, barrier_after;
    std::uint32_t barriers_before = 0;  // __syncthreads() its block had passed
};

struct race_witness {
    // In the order of the two sites' first runs in the epoch (shared) or launch (global): the
    // kernel's own order where one thread runs both (count, then merge: read after write).
    race_kind kind = race_kind::write_after_write;
    std::vector<race_kind> kinds;  // every kind seen for this pair of lines (kind first)
    std::string label;             // set_label()'s at the launch (the graded function)
    std::string kernel, launched_at;
    std::string memory;  // "shared" or "global"
    // Where: a __shared__ variable ("s_bins", full name in `variable`), an extern __shared__
    // array's name; for global memory the one name both lines index with [ (d_bins), else "" (the
    // allocation's size and the offset tell it).
    std::string array, variable;
    std::string region;               // "static" (__shared__), "dynamic" (extern __shared__), "global"
    std::uint64_t offset = 0;         // bytes from the variable's, dynamic area's or allocation's start
    std::uint32_t element_bytes = 0;  // the access's width: index = offset / element_bytes
    std::uint64_t index = 0;
    std::uint64_t allocation_bytes = 0;  // global: the allocation's (or variable's) size
    race_access first, second;           // in that order; second unused for uninitialised_read
};

// On or off for the launches that follow (default: CUDA_CPU_BACKEND_RACES=1 turns it on; off
// otherwise). Off, an access costs a test of this switch in the counting library's hook.
void set_race_detection(bool on);
bool race_detection();
// The counts (records()' sites and metrics) on or off for the launches that follow (default on;
// CUDA_CPU_BACKEND_COUNTING=0 turns them off). Off, launches are still listed, with zero counts.
// Both off, the instrumented build runs at the cost of its hooks alone.
void set_counting(bool on);
bool counting();

// The witnesses of the launches since the last clear_records() (which also clears them), one per
// launch label, kernel, memory and pair of source lines, in the order they were found. Resolves
// source lines (addr2line) when called. Safe between launches.
std::vector<race_witness> races();
// One witness in a line: "race on s_bins[17] (shared, write after write): thread 5 of block 0
// (lab.cu:46 `s_bins[x]++`, a plain read-modify-write) and thread 37 of block 0 (the same line),
// both between the barrier at lab.cu:22 and the barrier at lab.cu:51".
std::string describe(const race_witness& witness);
// The launches since the last clear_records() whose global memory went unchecked, a sentence each:
// a launch keeps at most 8 million global accesses (about 450 MB); past them its global memory is
// not checked (its shared memory still is). Empty for every count program of this project.
std::vector<std::string> races_unchecked();
// {"schema": "cpu-backend-races/v1", "races": [...], "unchecked": [...]} (README.md, "Race
// detector", gives the keys).
std::string races_json(const std::vector<race_witness>& witnesses, const std::vector<std::string>& unchecked = {});
// At exit, with detection on and CUDA_CPU_BACKEND_COUNTS set, the counts JSON gets "races" and
// "races_unchecked" keys holding the same lists.

}  // namespace cpu_backend::counting
