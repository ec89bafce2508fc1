// Measures the cost of one fiber switch for each fiber implementation, by
// bouncing between the host thread's own context and one fiber many times.
// Run with `meson test --benchmark` or directly; prints nanoseconds/switch.
#include "../src/fiber.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using namespace cpu_backend::detail;

constexpr long kRoundTrips = 2'000'000;

template <class Context>
struct ping_pong {
    Context host;
    Context fiber;
    long remaining = 0;
};

#if defined(__x86_64__)
ping_pong<asm_fiber_context> asm_state;
void asm_fiber_body(void*) {
    for (;;) asm_fiber_switch(asm_state.fiber, asm_state.host);
}
#endif

ping_pong<ucontext_fiber_context> ucontext_state;
void ucontext_fiber_body(void*) {
    for (;;) ucontext_fiber_switch(ucontext_state.fiber, ucontext_state.host);
}

template <class State, class Prepare, class Switch>
double nanoseconds_per_switch(State& state, Prepare prepare, Switch do_switch, fiber_entry_fn body) {
    std::vector<char> stack(64 * 1024);
    prepare(state.fiber, stack.data(), stack.size(), body, nullptr);
    do_switch(state.host, state.fiber);  // warm up: start the fiber once
    auto start = std::chrono::steady_clock::now();
    for (long i = 0; i < kRoundTrips; ++i) do_switch(state.host, state.fiber);
    auto stop = std::chrono::steady_clock::now();
    double ns = std::chrono::duration<double, std::nano>(stop - start).count();
    return ns / (2.0 * kRoundTrips);  // each round trip is two switches
}

}  // namespace

int main() {
#if defined(__x86_64__)
    double asm_ns = nanoseconds_per_switch(
        asm_state, [](auto& c, void* s, std::size_t n, fiber_entry_fn e, void* a) { asm_fiber_prepare(c, s, n, e, a); },
        [](auto& from, auto& to) { asm_fiber_switch(from, to); }, &asm_fiber_body);
    std::printf("x86-64 assembly switch: %.1f ns per switch\n", asm_ns);
#endif
    double uc_ns = nanoseconds_per_switch(
        ucontext_state, [](auto& c, void* s, std::size_t n, fiber_entry_fn e, void* a) { ucontext_fiber_prepare(c, s, n, e, a); },
        [](auto& from, auto& to) { ucontext_fiber_switch(from, to); }, &ucontext_fiber_body);
    std::printf("ucontext swapcontext:   %.1f ns per switch\n", uc_ns);
    std::printf("backend uses: %s\n", fiber_implementation_name);
    return EXIT_SUCCESS;
}
