// The GPU's state as its driver reports it: SM clock, power limit, temperature, why its clocks are
// held down (throttle reasons) and how many other processes use it. Read through NVML (the
// driver's management library), loaded when a program runs, not linked: without it the programs
// run all the same and say why the state is unknown. The benchmark puts it in its header; the
// speed tests record it before and after each test (device.cuh), so a time taken on a hot,
// throttled or shared GPU says so.
#pragma once
#include <set>
#include <string>

namespace grader {

struct GpuState {
  unsigned sm_mhz = 0;         // now
  unsigned sm_max_mhz = 0;     // the most the SMs may run at
  unsigned power_limit_w = 0;  // enforced
  unsigned temperature_c = 0;
  unsigned long long throttle_reasons = 0;  // NVML's clock event reasons, a bit mask
  int processes = -1;        // compute processes on the GPU, ours included; -1: unknown
  int other_processes = -1;  // of those, not this program's (itself and its runners); -1: unknown
  std::string other_processes_note;  // how they were told apart, where not exactly
  std::string unknown_because;       // empty when the clocks, temperature and reasons were read

  // A slowdown that makes a time slower than this GPU can do: thermal, hardware, power brake. (Idle,
  // application clocks and the software power cap are reported, not counted.)
  bool throttled() const;
  // The reasons in words, e.g. "hardware thermal slowdown, software power cap"; "" for none.
  std::string throttle_text() const;
};

class GpuStateReader {
 public:
  explicit GpuStateReader(const std::string& pci_bus_id);  // as cudaDeviceGetPCIBusId writes it
  ~GpuStateReader();
  GpuStateReader(const GpuStateReader&) = delete;
  GpuStateReader& operator=(const GpuStateReader&) = delete;
  // `own_processes`: how many processes of this program hold a context on the GPU, for when the
  // driver's process IDs are not this program's (another PID namespace) and cannot be matched.
  GpuState read(int own_processes = 1) const;

 private:
  struct Library;
  Library* nvml_ = nullptr;
  std::string unknown_because_;
};

// Other processes, given the driver's process IDs: those not in `own` (this process and its
// descendants), at most all but `own_processes` of them (a sandboxed runner's ID may not be
// found among the descendants). When `self` is not among them, the IDs are from another PID
// namespace: then all but `own_processes` of them, and `note` says it is an estimate.
int count_other_processes(const std::set<unsigned>& gpu_pids, const std::set<unsigned>& own, unsigned self,
                          int own_processes, std::string& note);

// This process and every descendant of it (/proc/PID/task/TID/children); just this one where that
// cannot be read.
std::set<unsigned> own_process_tree();

}  // namespace grader
