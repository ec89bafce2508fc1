// The frame every lab's sweep program shares: the grader's options, the refusals (the CPU
// backend cannot time; no device), and one error line instead of a crash.
#pragma once
#include <functional>

#include "grader/core/device.cuh"

namespace grader {

// Runs `print_table(device)` and returns main()'s exit status: 0, 1 on an error, 2 when the
// sweep cannot run here.
int run_sweep(int argc, char** argv, const std::function<void(const DeviceStatus&)>& print_table);

}  // namespace grader
