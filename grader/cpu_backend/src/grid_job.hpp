// Everything the host threads share while they run the blocks of one launch.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "cpu_backend/launch.hpp"
#include "cpu_backend/runtime_types.hpp"
#include "cpu_backend/vector_types.hpp"

namespace cpu_backend::detail {

struct grid_job {
    kernel_invocation invocation{};
    dim3 grid;
    dim3 block;
    std::size_t dynamic_shared_bytes = 0;
    std::uint32_t threads_per_block = 0;
    std::uint64_t block_count = 0;
    std::uint64_t seed = 0;

    // Blocks are handed out in increasing linear order, as a GPU's block
    // scheduler does, so kernels that wait on lower-numbered blocks (e.g. a
    // decoupled look-back scan) make progress.
    std::atomic<std::uint64_t> next_block{0};

    // The first fault of the launch wins; later blocks are not started.
    std::atomic<bool> faulted{false};
    std::mutex fault_mutex;
    cudaError_t fault_error = cudaSuccess;
    std::string fault_message;

    void record_fault(cudaError_t error, const std::string& message) {
        std::lock_guard<std::mutex> lock(fault_mutex);
        if (faulted.load()) return;
        fault_error = error;
        fault_message = message;
        faulted.store(true);
    }
};

}  // namespace cpu_backend::detail
