#include "grader/core/sweep_main.cuh"

#include <cstdio>
#include <exception>

#include "grader/core/run_options.hpp"

namespace grader {

int run_sweep(int argc, char** argv, const std::function<void(const DeviceStatus&)>& print_table) {
  try {
    parse_run_options(argc, argv);
    if (kCpuBackend) {
      std::fprintf(stderr, "The sweep measures time, and timing needs a GPU: the CPU backend checks "
                           "correctness only.\n");
      return 2;
    }
    const DeviceStatus& device = device_status();
    if (!device.available) {
      std::fprintf(stderr, "error: %s\n", device.reason.c_str());
      return 2;
    }
    print_table(device);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
  return 0;
}

}  // namespace grader
