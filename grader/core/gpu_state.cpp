#include "grader/core/gpu_state.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

namespace grader {
namespace {

// The few NVML entry points used, as nvml.h declares them (the header is not needed to build).
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlInsufficientSize = 7;
constexpr int kNvmlClockSm = 1;        // NVML_CLOCK_SM
constexpr int kNvmlTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
struct NvmlProcessInfo {  // nvmlProcessInfo_t of the _v2 and _v3 process queries
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id, compute_instance_id;
};
using InitFn = int (*)();
using ShutdownFn = int (*)();
using HandleByBusFn = int (*)(const char*, NvmlDevice*);
using ClockFn = int (*)(NvmlDevice, int, unsigned*);
using UnsignedFn = int (*)(NvmlDevice, unsigned*);
using TemperatureFn = int (*)(NvmlDevice, int, unsigned*);
using ReasonsFn = int (*)(NvmlDevice, unsigned long long*);
using ProcessesFn = int (*)(NvmlDevice, unsigned*, NvmlProcessInfo*);

// NVML's clock event (throttle) reasons: bit, words, whether it makes a time unfair.
struct Reason {
  unsigned long long bit;
  const char* words;
  bool unfair;
};
constexpr Reason kReasons[] = {
    {0x1, "GPU idle", false},
    {0x2, "application clocks setting", false},
    {0x4, "software power cap", false},
    {0x8, "hardware slowdown", true},
    {0x10, "sync boost", false},
    {0x20, "software thermal slowdown", true},
    {0x40, "hardware thermal slowdown", true},
    {0x80, "hardware power brake slowdown", true},
    {0x100, "display clock setting", false},
};

template <class F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

}  // namespace

bool GpuState::throttled() const {
  for (const Reason& r : kReasons) {
    if (r.unfair && (throttle_reasons & r.bit)) return true;
  }
  return false;
}

std::string GpuState::throttle_text() const {
  std::string text;
  for (const Reason& r : kReasons) {
    if (throttle_reasons & r.bit) text += (text.empty() ? "" : ", ") + std::string(r.words);
  }
  return text;
}

struct GpuStateReader::Library {
  void* handle = nullptr;
  ShutdownFn shutdown = nullptr;
  ClockFn clock = nullptr, max_clock = nullptr;
  UnsignedFn power_limit = nullptr;
  TemperatureFn temperature = nullptr;
  ReasonsFn reasons = nullptr;
  ProcessesFn processes = nullptr;
  NvmlDevice device = nullptr;
};

GpuStateReader::GpuStateReader(const std::string& pci_bus_id) {
  void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    unknown_because_ = "NVML (libnvidia-ml.so.1) not found";
    return;
  }
  auto init = symbol<InitFn>(handle, "nvmlInit_v2");
  auto by_bus = symbol<HandleByBusFn>(handle, "nvmlDeviceGetHandleByPciBusId_v2");
  auto library = new Library{handle, symbol<ShutdownFn>(handle, "nvmlShutdown"),
                             symbol<ClockFn>(handle, "nvmlDeviceGetClockInfo"),
                             symbol<ClockFn>(handle, "nvmlDeviceGetMaxClockInfo"),
                             symbol<UnsignedFn>(handle, "nvmlDeviceGetEnforcedPowerLimit"),
                             symbol<TemperatureFn>(handle, "nvmlDeviceGetTemperature")};
  // Newer drivers name the throttle reasons "clock event reasons"; older ones only the first.
  library->reasons = symbol<ReasonsFn>(handle, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!library->reasons) library->reasons = symbol<ReasonsFn>(handle, "nvmlDeviceGetCurrentClocksThrottleReasons");
  library->processes = symbol<ProcessesFn>(handle, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (!library->processes) library->processes = symbol<ProcessesFn>(handle, "nvmlDeviceGetComputeRunningProcesses_v2");
  if (!init || !by_bus || !library->shutdown || !library->clock || !library->max_clock || !library->power_limit ||
      !library->temperature || !library->reasons) {
    unknown_because_ = "NVML lacks an entry point the grader uses (an old driver?)";
  } else if (init() != kNvmlSuccess) {
    unknown_because_ = "NVML did not start";
    library->shutdown = nullptr;
  } else if (by_bus(pci_bus_id.c_str(), &library->device) != kNvmlSuccess) {
    unknown_because_ = "NVML does not know the GPU at " + pci_bus_id;
  }
  nvml_ = library;
}

GpuStateReader::~GpuStateReader() {
  if (nvml_ == nullptr) return;
  if (nvml_->shutdown) nvml_->shutdown();
  dlclose(nvml_->handle);
  delete nvml_;
}

GpuState GpuStateReader::read(int own_processes) const {
  GpuState s;
  s.unknown_because = unknown_because_;
  if (!s.unknown_because.empty()) return s;
  unsigned milliwatts = 0;
  if (nvml_->clock(nvml_->device, kNvmlClockSm, &s.sm_mhz) != kNvmlSuccess ||
      nvml_->max_clock(nvml_->device, kNvmlClockSm, &s.sm_max_mhz) != kNvmlSuccess ||
      nvml_->power_limit(nvml_->device, &milliwatts) != kNvmlSuccess ||
      nvml_->temperature(nvml_->device, kNvmlTemperatureGpu, &s.temperature_c) != kNvmlSuccess ||
      nvml_->reasons(nvml_->device, &s.throttle_reasons) != kNvmlSuccess) {
    s.unknown_because = "NVML could not read the clocks, temperature or throttle reasons";
  }
  s.power_limit_w = milliwatts / 1000;
  if (nvml_->processes == nullptr) {
    s.other_processes_note = "NVML cannot list the GPU's processes";
    return s;
  }
  // The list may grow between asking its size and reading it: room for a few more.
  std::vector<NvmlProcessInfo> infos(8);
  for (int attempt = 0; attempt < 3; ++attempt) {
    unsigned count = static_cast<unsigned>(infos.size());
    const int status = nvml_->processes(nvml_->device, &count, infos.data());
    if (status == kNvmlSuccess) {
      std::set<unsigned> pids;
      for (unsigned i = 0; i < count; ++i) pids.insert(infos[i].pid);
      s.processes = static_cast<int>(count);
      s.other_processes = count_other_processes(pids, own_process_tree(), static_cast<unsigned>(getpid()),
                                                own_processes, s.other_processes_note);
      return s;
    }
    if (status != kNvmlInsufficientSize) break;
    infos.resize(count + 8);
  }
  s.other_processes_note = "NVML could not list the GPU's processes";
  return s;
}

int count_other_processes(const std::set<unsigned>& gpu_pids, const std::set<unsigned>& own, unsigned self,
                          int own_processes, std::string& note) {
  const int beyond_own = std::max(0, static_cast<int>(gpu_pids.size()) - own_processes);
  if (gpu_pids.count(self) > 0) {
    // A runner in a sandbox may hide its descendants from /proc: never more than the count allows.
    int unmatched = 0;
    for (unsigned pid : gpu_pids) unmatched += own.count(pid) == 0;
    note.clear();
    return std::min(unmatched, beyond_own);
  }
  note = "estimated: the GPU's process IDs are not this program's (another PID namespace), so all but "
         "this program's " + std::to_string(own_processes) + " count as others";
  return beyond_own;
}

std::set<unsigned> own_process_tree() {
  std::set<unsigned> tree{static_cast<unsigned>(getpid())};
  std::vector<unsigned> pending(tree.begin(), tree.end());
  while (!pending.empty()) {
    const unsigned pid = pending.back();
    pending.pop_back();
    std::error_code ignored;
    const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
    for (const auto& task : std::filesystem::directory_iterator(tasks, ignored)) {
      std::ifstream children(task.path() / "children");
      for (unsigned child = 0; children >> child;) {
        if (tree.insert(child).second) pending.push_back(child);
      }
    }
  }
  return tree;
}

}  // namespace grader
