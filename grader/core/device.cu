#include "grader/core/device.cuh"

#include <cstdio>
#include <sstream>
#include <string>

#include "grader/core/cuda_check.cuh"
#include "grader/core/gpu_state.hpp"
#include "grader/core/results.hpp"
#include "grader/core/run_options.hpp"
#include "grader/core/student_code.hpp"
#include "grader/runner/process.hpp"

namespace grader {
namespace {

DeviceStatus probe() {
  DeviceStatus status;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess || count == 0) {
    status.reason = "no CUDA device (" + std::string(cudaGetErrorString(error)) +
                    "): GPU tests need an NVIDIA GPU and driver; configure with -Dkernel_backend=cpu to "
                    "check correctness on the CPU backend";
    return status;
  }
  const cudaError_t properties_error = cudaGetDeviceProperties(&status.properties, 0);
  if (properties_error != cudaSuccess) {
    status.reason = "cannot read the device's properties: " + describe_cuda_error(properties_error);
    return status;
  }
  std::ostringstream text;
  text << status.properties.name;
  if (!kCpuBackend) {
    text << " (sm_" << status.properties.major << status.properties.minor << ", "
         << status.properties.multiProcessorCount << " SMs)";
  }
  status.description = text.str();
  status.available = true;
  return status;
}

const GpuStateReader& gpu_state_reader() {
  static const GpuStateReader reader([] {
    char bus_id[32] = "";
#ifndef CUDA_CPU_BACKEND  // speed tests skip there before they would ask
    cudaFree(nullptr);  // this process's context, so the driver lists it among the GPU's processes
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, 0) != cudaSuccess) cudaGetLastError();
#endif
    return std::string(bus_id);
  }());
  return reader;
}

// The GPU's state into the test's metrics (`when`: "before" or "after"); a throttled or shared GPU
// also into its message. Without NVML: said once, never a failure.
void watch_gpu(const std::string& when) {
  const GpuState s = gpu_state_reader().read(1 + runner::RunnerProcess::running_count());
  if (!s.unknown_because.empty()) {
    static bool said = false;
    if (!said) std::printf("[ gpu      ] the GPU's clocks and temperature are not recorded: %s\n", s.unknown_because.c_str());
    said = true;
    record_metric("gpu_state_known_" + when, 0);
    return;
  }
  record_metric("gpu_state_known_" + when, 1);
  record_metric("gpu_sm_mhz_" + when, s.sm_mhz);
  record_metric("gpu_sm_max_mhz_" + when, s.sm_max_mhz);
  record_metric("gpu_temperature_c_" + when, s.temperature_c);
  record_metric("gpu_throttle_reasons_" + when, static_cast<double>(s.throttle_reasons));
  record_metric("gpu_other_processes_" + when, s.other_processes);
  std::string unfair;
  if (s.throttled()) unfair = "throttled (" + s.throttle_text() + ")";
  if (s.other_processes > 0) {
    unfair += (unfair.empty() ? "" : " and ") + std::string("shared with ") + std::to_string(s.other_processes) +
              " other process" + (s.other_processes > 1 ? "es" : "") +
              (s.other_processes_note.empty() ? "" : " (" + s.other_processes_note + ")");
  }
  std::printf("[ gpu      ] %s the test: SM clock %u of %u MHz, %u C, clock reasons: %s; other processes on the "
              "GPU: %d%s\n", when.c_str(), s.sm_mhz, s.sm_max_mhz, s.temperature_c,
              s.throttle_text().empty() ? "none" : s.throttle_text().c_str(), s.other_processes,
              s.other_processes_note.empty() ? "" : (" (" + s.other_processes_note + ")").c_str());
  if (unfair.empty()) return;
  record_metric("unfair_timing_" + when, 1);
  record_note("timed on a GPU " + unfair + " " + when + " the test (SM clock " + std::to_string(s.sm_mhz) + " of " +
              std::to_string(s.sm_max_mhz) + " MHz, " + std::to_string(s.temperature_c) +
              " C): its times may be slower than this GPU can do");
}

}  // namespace

const DeviceStatus& device_status() {
  static const DeviceStatus status = probe();
  return status;
}

void GpuTest::SetUp() {
  discard_student_calls();  // nothing a previous test left unchecked is blamed on this one
  if (!device_status().available) GTEST_SKIP() << device_status().reason;
}

void SpeedTest::SetUp() {
  GpuTest::SetUp();
  if (IsSkipped()) return;
  if (kCpuBackend) GTEST_SKIP() << "timing needs a GPU: the CPU backend checks correctness only";
  if (run_options().small_inputs) {
    GTEST_SKIP() << "speed is not measured on small inputs (sanitizer runs)";
  }
  watch_gpu("before");
  watched_ = true;
}

void SpeedTest::TearDown() {
  if (watched_) watch_gpu("after");
}

}  // namespace grader
