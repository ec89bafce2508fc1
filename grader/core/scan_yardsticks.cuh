// Yardsticks for the scan labs, measured in the same run on the same GPU as the student's scans:
// a device-to-device copy (the floor for any scan: it must read and write every element once) and
// CUB's DeviceScan::InclusiveSum (what a tuned library reaches). Both count 2 * 4 bytes per element.
//
// They exist on the CUDA backend only (CUB is GPU code); on the CPU backend speed tests skip before
// calling them, and these stand-ins say so if something calls them anyway.
#pragma once
#include <cstddef>
#include <stdexcept>

#include "grader/core/yardsticks.cuh"

namespace grader {

#ifndef CUDA_CPU_BACKEND
// cudaMemcpyAsync of `count` ints from d_src to d_dst.
Measurement measure_copy_bandwidth(const int* d_src, int* d_dst, std::size_t count);
// cub::DeviceScan::InclusiveSum of d_in[0..count) into d_out, temporary storage allocated once.
Measurement measure_cub_inclusive_sum(const int* d_in, int* d_out, std::size_t count);
// Checks CUB's answer against the CPU, so the yardstick itself is known to be a scan.
bool cub_inclusive_sum_matches_cpu(std::size_t count);
#else
inline Measurement measure_copy_bandwidth(const int*, int*, std::size_t) {
  throw std::logic_error("the copy yardstick needs a GPU: speed tests skip on the CPU backend");
}
inline Measurement measure_cub_inclusive_sum(const int*, int*, std::size_t) {
  throw std::logic_error("the CUB yardstick needs a GPU: speed tests skip on the CPU backend");
}
inline bool cub_inclusive_sum_matches_cpu(std::size_t) {
  throw std::logic_error("the CUB yardstick needs a GPU: speed tests skip on the CPU backend");
}
#endif

}  // namespace grader
