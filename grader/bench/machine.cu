#include "grader/bench/machine.cuh"

#include <cub/version.cuh>
#include <cuda/std/version>

#include <cctype>
#include <ctime>
#include <fstream>
#include <sstream>

#include "grader/core/cuda_check.cuh"

namespace bench {
namespace {

std::string version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// 300001 with (100000, 100) -> "3.0.1".
std::string dotted(int v, int major, int minor) {
  return std::to_string(v / major) + "." + std::to_string(v / minor % (major / minor)) + "." +
         std::to_string(v % minor);
}

// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build ...": the
// first word shaped like 580.159.04, or "".
std::string kernel_module() {
  std::ifstream proc("/proc/driver/nvidia/version");
  std::string line, word;
  if (!std::getline(proc, line)) return "";
  std::istringstream words(line);
  while (words >> word) {
    if (word.find('.') != std::string::npos && std::isdigit(static_cast<unsigned char>(word[0]))) return word;
  }
  return "";
}

}  // namespace

Header describe_machine(const std::string& gpu, int runs, const grader::GpuState& clocks) {
  Header h;
  h.gpu = gpu;
  h.runs = runs;
  h.sm_max_mhz = clocks.sm_max_mhz;
  h.power_limit_w = clocks.power_limit_w;
  h.clocks_unknown_because = clocks.unknown_because;
  int driver = 0, runtime = 0;
  GRADER_CUDA_CHECK(cudaDriverGetVersion(&driver));
  GRADER_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  const std::string module = kernel_module();
  h.driver = (module.empty() ? std::string() : module + " ") + "(CUDA " + version(driver) + ")";
  h.runtime = version(runtime);
  h.cub = dotted(CUB_VERSION, 100000, 100) + " (CCCL " + dotted(CCCL_VERSION, 1000000, 1000) + ")";
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  h.date = date;
  return h;
}

std::string machine_line(const Header& h) {
  return "GPU " + h.gpu + " | driver " + h.driver + " | CUDA runtime " + h.runtime + " | CUB " + h.cub + " | " +
         h.date;
}

}  // namespace bench
