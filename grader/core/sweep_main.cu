#include "grader/core/sweep_main.cuh"

#include <cstdio>
#include <exception>

#include "grader/core/run_options.hpp"

namespace grader {

int run_sweep(int argc, char** argv, const std::function<void(const DeviceStatus&)>& print_table) {
  try {
    parse_tool_options(argc, argv);
    if (kCpuBackend) {
      // Not an error: the student asked for a table this machine cannot make. One line, exit 0,
      // so `meson compile -C build labNN-sweep` ends without ninja's FAILED.
      std::printf("No sweep on the CPU backend: the sweep times kernels, and timing needs an NVIDIA "
                  "GPU (the handout's tables show one GPU's figures).\n");
      return 0;
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
