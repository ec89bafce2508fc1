#include "grader/bench/gpu_clocks.hpp"

#include <dlfcn.h>

namespace bench {
namespace {

// The few NVML entry points used, as nvml.h declares them (the header is not needed to build).
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM
using InitFn = int (*)();
using ShutdownFn = int (*)();
using HandleByBusFn = int (*)(const char*, NvmlDevice*);
using ClockFn = int (*)(NvmlDevice, int, unsigned*);
using PowerLimitFn = int (*)(NvmlDevice, unsigned*);

}  // namespace

struct ClockReader::Library {
  void* handle = nullptr;
  ShutdownFn shutdown = nullptr;
  ClockFn clock = nullptr, max_clock = nullptr;
  PowerLimitFn power_limit = nullptr;
  NvmlDevice device = nullptr;
};

ClockReader::ClockReader(const std::string& pci_bus_id) {
  void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    unknown_because_ = "NVML (libnvidia-ml.so.1) not found";
    return;
  }
  auto init = reinterpret_cast<InitFn>(dlsym(handle, "nvmlInit_v2"));
  auto by_bus = reinterpret_cast<HandleByBusFn>(dlsym(handle, "nvmlDeviceGetHandleByPciBusId_v2"));
  auto library = new Library{handle, reinterpret_cast<ShutdownFn>(dlsym(handle, "nvmlShutdown")),
                             reinterpret_cast<ClockFn>(dlsym(handle, "nvmlDeviceGetClockInfo")),
                             reinterpret_cast<ClockFn>(dlsym(handle, "nvmlDeviceGetMaxClockInfo")),
                             reinterpret_cast<PowerLimitFn>(dlsym(handle, "nvmlDeviceGetEnforcedPowerLimit"))};
  if (!init || !by_bus || !library->shutdown || !library->clock || !library->max_clock || !library->power_limit) {
    unknown_because_ = "NVML lacks an entry point the benchmark uses";
  } else if (init() != kNvmlSuccess) {
    unknown_because_ = "NVML did not start";
    library->shutdown = nullptr;
  } else if (by_bus(pci_bus_id.c_str(), &library->device) != kNvmlSuccess) {
    unknown_because_ = "NVML does not know the GPU at " + pci_bus_id;
  }
  nvml_ = library;
}

ClockReader::~ClockReader() {
  if (nvml_ == nullptr) return;
  if (nvml_->shutdown) nvml_->shutdown();
  dlclose(nvml_->handle);
  delete nvml_;
}

GpuClocks ClockReader::read() const {
  GpuClocks c;
  c.unknown_because = unknown_because_;
  if (!c.unknown_because.empty()) return c;
  unsigned milliwatts = 0;
  if (nvml_->clock(nvml_->device, kNvmlClockSm, &c.sm_mhz) != kNvmlSuccess ||
      nvml_->max_clock(nvml_->device, kNvmlClockSm, &c.sm_max_mhz) != kNvmlSuccess ||
      nvml_->power_limit(nvml_->device, &milliwatts) != kNvmlSuccess) {
    c.unknown_because = "NVML could not read the clocks";
  }
  c.power_limit_w = milliwatts / 1000;
  return c;
}

}  // namespace bench
