// The GPU's SM clock and power limit, read from NVML (the driver's management library), which is
// loaded when the benchmark runs, not linked: without it the benchmark runs all the same and says
// why it has no clocks. Two machines with the same GPU can differ here, and kernels bound by the SMs
// (shared atomics) follow the SM clock where a streaming read does not.
#pragma once
#include <string>

namespace bench {

struct GpuClocks {
  unsigned sm_mhz = 0;         // now
  unsigned sm_max_mhz = 0;     // the most the SMs may run at
  unsigned power_limit_w = 0;  // enforced
  std::string unknown_because; // empty when the figures above were read
};

class ClockReader {
 public:
  explicit ClockReader(const std::string& pci_bus_id);  // as cudaDeviceGetPCIBusId writes it
  ~ClockReader();
  ClockReader(const ClockReader&) = delete;
  ClockReader& operator=(const ClockReader&) = delete;
  GpuClocks read() const;

 private:
  struct Library;
  Library* nvml_ = nullptr;
  std::string unknown_because_;
};

}  // namespace bench
