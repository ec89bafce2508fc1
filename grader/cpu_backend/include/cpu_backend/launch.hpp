// What a rewritten kernel launch calls. transform_launches.py turns
//     kernel<<<grid, block, shmem, stream>>>(a, b);
// into (on one line)
//     ::cpu_backend::detail::launch_kernel(
//         ::cpu_backend::detail::launch_config(grid, block, shmem, stream),
//         "kernel", __FILE__, __LINE__,
//         [&]([[maybe_unused]] auto p) -> decltype(...kernel_address<decltype(p)>(kernel)) {...},
//         [&](const auto&... args) { kernel(args...); }, a, b);
// The second lambda calls the kernel exactly as the launch names it, so
// template arguments are deduced from the call arguments as nvcc deduces
// them. The first lambda yields the kernel's address when the name denotes
// one function (it fails to substitute, and is then ignored, for a template
// whose arguments are deduced); the address selects the kernel's
// cudaFuncSetAttribute settings.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "runtime_types.hpp"
#include "vector_types.hpp"

namespace cpu_backend::detail {

struct launch_config {
    dim3 grid;
    dim3 block;
    std::size_t dynamic_shared_bytes;
    cudaStream_t stream;
    launch_config(dim3 grid_shape, dim3 block_shape, std::size_t shared_bytes = 0, cudaStream_t launch_stream = 0)
        : grid(grid_shape), block(block_shape), dynamic_shared_bytes(shared_bytes), stream(launch_stream) {}
};

struct kernel_site {
    const char* kernel_name;  // as the launch wrote it (a variable's name, for a launch through one)
    const char* file;
    int line;
    const void* address = nullptr;  // the kernel function, where the launch could take its address
};

// A type-erased "run the kernel body for the current CUDA thread".
struct kernel_invocation {
    void (*run)(const void* payload);
    const void* payload;
};

// Runs the whole grid; returns after every block has finished or faulted.
void launch_grid(const launch_config& config, const kernel_site& site, const void* kernel_address,
                 kernel_invocation invocation);

template <class Probe, class Function>
const void* kernel_address(Function function) {
    return reinterpret_cast<const void*>(function);
}

template <class Probe, class Body, class... Args>
void launch_kernel(const launch_config& config, const char* kernel_name, const char* file, int line,
                   Probe address_probe, Body body, Args&&... args) {
    const void* address = nullptr;
    if constexpr (std::is_invocable_v<Probe, int>) address = address_probe(0);
    // Like CUDA, the arguments are evaluated and copied once, at the launch;
    // each CUDA thread then receives its own copy of every parameter.
    using arguments = std::tuple<std::decay_t<Args>...>;
    struct payload_type {
        Body body;
        arguments values;
    };
    const payload_type payload{std::move(body), arguments(std::forward<Args>(args)...)};
    kernel_invocation invocation{
        [](const void* p) {
            const auto& self = *static_cast<const payload_type*>(p);
            std::apply(self.body, self.values);
        },
        &payload};
    launch_grid(config, kernel_site{kernel_name, file, line}, address, invocation);
}

// The calling host thread's dynamic shared memory (the block it is running).
void* dynamic_shared_memory();

}  // namespace cpu_backend::detail
