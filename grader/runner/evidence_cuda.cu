// The runner's evidence on a GPU (evidence.hpp): CUPTI's SASS metrics, which patch each kernel's
// machine code at its first launch to count, per instruction, the warps that executed it, the
// threads that did with its predicate on, and the global sectors it accessed. Patching reaches
// only kernels first launched after it is on, so the mode starts before the student's first call;
// and a range is opened once for the runner's life (a second range sees no kernel launched in the
// first), each call's counts flushed from it after the call.
#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "grader/runner/cupti_loader.hpp"
#include "grader/runner/evidence.hpp"

namespace grader::runner {
namespace {

// The metrics, in the order the counts are kept.
const char* const kMetrics[] = {"smsp__sass_inst_executed", "smsp__sass_thread_inst_executed_pred_on",
                                "smsp__sass_sectors_mem_global"};
constexpr int kMetricCount = 3;
std::map<std::uint64_t, int> metric_slot;  // CUPTI's metric id -> its place in kMetrics
bool evidence_on = false;

std::string cupti_error(const char* what, CUptiResult result) {
  const char* text = nullptr;
  if (CUPTI(cuptiGetResultString)) CUPTI(cuptiGetResultString)(result, &text);
  return std::string(what) + " failed (" + (text ? text : "CUPTI error " + std::to_string(result)) + ")";
}

#define EVIDENCE_CALL(call, name)                            \
  do {                                                       \
    if (!CUPTI(name)) {                                      \
      why = "this CUPTI has no " #name;                      \
      return false;                                          \
    }                                                        \
    const CUptiResult result = CUPTI(name) call;             \
    if (result != CUPTI_SUCCESS) {                           \
      why = cupti_error(#name, result);                      \
      return false;                                          \
    }                                                        \
  } while (0)

// A CUPTI parameter block: zeroed, with its size set.
template <class Params>
Params params(std::size_t size) {
  Params p{};
  p.structSize = size;
  return p;
}

}  // namespace

bool start_evidence(std::string& why, bool /*races: the CPU backend's alone*/) {
  if (cudaFree(nullptr) != cudaSuccess) {  // the context the metrics attach to
    why = "no CUDA context";
    return false;
  }
  int device = 0;
  cudaGetDevice(&device);
  auto initialize = params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  EVIDENCE_CALL((&initialize), cuptiProfilerInitialize);
  auto supported = params<CUpti_Profiler_DeviceSupported_Params>(CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE);
  supported.cuDevice = device;
  supported.api = CUPTI_PROFILER_SASS_METRICS;
  EVIDENCE_CALL((&supported), cuptiProfilerDeviceSupported);
  if (supported.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
    why = "CUPTI's SASS metrics are not supported on this GPU or configuration (a vGPU, WSL, MIG?)";
    return false;
  }
  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<std::size_t>(device);
  EVIDENCE_CALL((&chip), cuptiDeviceGetChipName);
  std::vector<CUpti_SassMetrics_Config> configs;
  for (int slot = 0; slot < kMetricCount; ++slot) {
    auto properties = params<CUpti_SassMetrics_GetProperties_Params>(CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
    properties.pChipName = chip.pChipName;
    properties.pMetricName = kMetrics[slot];
    EVIDENCE_CALL((&properties), cuptiSassMetricsGetProperties);
    metric_slot[properties.metric.metricId] = slot;
    configs.push_back({properties.metric.metricId, CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU});
  }
  auto config = params<CUpti_SassMetricsSetConfig_Params>(CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
  config.pConfigs = configs.data();
  config.numOfMetricConfig = configs.size();
  config.deviceIndex = static_cast<std::uint32_t>(device);
  EVIDENCE_CALL((&config), cuptiSassMetricsSetConfig);
  auto enable = params<CUpti_SassMetricsEnable_Params>(CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
  enable.ctx = nullptr;  // the current (primary) context
  enable.enableLazyPatching = 1;
  EVIDENCE_CALL((&enable), cuptiSassMetricsEnable);
  evidence_on = true;
  return true;
}

Evidence take_evidence() {
  Evidence evidence;
  evidence.collected = evidence_on;
  if (!evidence_on) return evidence;
  auto properties = params<CUpti_SassMetricsGetDataProperties_Params>(CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
  properties.ctx = nullptr;
  const CUptiResult asked = CUPTI(cuptiSassMetricsGetDataProperties)(&properties);
  if (asked != CUPTI_SUCCESS) {
    evidence.unavailable = cupti_error("cuptiSassMetricsGetDataProperties", asked);
    return evidence;
  }
  const std::size_t records = properties.numOfPatchedInstructionRecords;
  if (records == 0 || properties.numOfInstances == 0) return evidence;
  // Room for every metric's instances in each record, whichever way CUPTI lays them out.
  const std::size_t values = properties.numOfInstances * kMetricCount;
  std::vector<CUpti_SassMetrics_Data> data(records);
  std::vector<CUpti_SassMetrics_InstanceValue> room(records * values);
  for (std::size_t i = 0; i < records; ++i) {
    data[i].structSize = sizeof(CUpti_SassMetrics_Data);
    data[i].pInstanceValues = room.data() + i * values;
  }
  auto flush = params<CUpti_SassMetricsFlushData_Params>(CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
  flush.ctx = nullptr;
  flush.numOfPatchedInstructionRecords = records;
  flush.numOfInstances = properties.numOfInstances;
  flush.pMetricsData = data.data();
  const CUptiResult flushed = CUPTI(cuptiSassMetricsFlushData)(&flush);
  if (flushed != CUPTI_SUCCESS) {
    evidence.unavailable = cupti_error("cuptiSassMetricsFlushData", flushed);
    return evidence;
  }
  // Summed per kernel and instruction; instructions that never ran are left out.
  std::map<std::tuple<std::string, std::uint64_t>, std::array<std::uint64_t, kMetricCount>> sums;
  for (std::size_t i = 0; i < records; ++i) {
    const std::string kernel = data[i].functionName ? data[i].functionName : "?";
    std::array<std::uint64_t, kMetricCount>& into = sums[{kernel, data[i].pcOffset}];
    for (std::size_t v = 0; v < values; ++v) {
      const auto found = metric_slot.find(data[i].pInstanceValues[v].metricId);
      if (found != metric_slot.end()) into[found->second] += data[i].pInstanceValues[v].value;
    }
    std::free(const_cast<char*>(data[i].functionName));  // CUPTI's copy, the caller's to free
  }
  for (const auto& [key, counts] : sums) {
    if (counts[0] == 0 && counts[1] == 0) continue;
    EvidenceEntry entry;
    entry.kernel = std::get<0>(key);
    entry.pc = std::get<1>(key);
    entry.warps = counts[0];
    entry.threads = counts[1];
    entry.sectors = counts[2];
    evidence.entries.push_back(std::move(entry));
  }
  return evidence;
}

}  // namespace grader::runner
