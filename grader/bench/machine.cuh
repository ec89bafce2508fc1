// What a benchmark's results were measured on: the GPU, the driver (the kernel module's version
// where Linux shows it), the CUDA runtime, the CUB/CCCL version compiled in, the date (UTC).
// kernel_benchmark and size_sweep both head their results with it.
#pragma once
#include <string>

#include "grader/bench/bench_report.hpp"
#include "grader/core/gpu_state.hpp"

namespace bench {

Header describe_machine(const std::string& gpu, int runs, const grader::GpuState& clocks);

// "GPU ... | driver 580.159.04 (CUDA 13.0) | CUDA runtime 13.0 | CUB 3.0.1 (CCCL 3.0.1) | date".
std::string machine_line(const Header& h);

}  // namespace bench
