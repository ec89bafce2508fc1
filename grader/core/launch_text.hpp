// The text tests and sweeps print for a lab's launch shape, one definition for every lab:
//   slices  {threads_per_block, samples_per_thread}  "256 threads/block, 32 samples/thread"
//   chunks  {threads_per_block, samples_per_block}   "256 threads/block, 4096 samples/block"
//   grids   {blocks, threads_per_block}              "264 blocks of 256 threads"
// The labs declare their own launch structs (with each lab's limits in their comments); these
// templates take any struct with the members of one of those shapes.
#pragma once
#include <string>

namespace grader {

template <class Launch>
auto describe(const Launch& l) -> decltype(l.samples_per_thread, std::string()) {
  return std::to_string(l.threads_per_block) + " threads/block, " +
         std::to_string(l.samples_per_thread) + " samples/thread";
}

template <class Launch>
auto describe(const Launch& l) -> decltype(l.samples_per_block, std::string()) {
  return std::to_string(l.threads_per_block) + " threads/block, " +
         std::to_string(l.samples_per_block) + " samples/block";
}

template <class Launch>
auto describe(const Launch& l) -> decltype(l.blocks, std::string()) {
  return std::to_string(l.blocks) + " blocks of " + std::to_string(l.threads_per_block) + " threads";
}

}  // namespace grader
