// Measures the cost of one fiber switch for each fiber implementation built in, by
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

#if CPU_BACKEND_FIBER_HAS_ASSEMBLY
ping_pong<asm_fiber_context> asm_state;
void asm_fiber_body(void*) {
    for (;;) asm_fiber_switch(asm_state.fiber, asm_state.host);
}
#endif

#if CPU_BACKEND_FIBER_KIND == CPU_BACKEND_FIBER_KIND_BOOST
ping_pong<boost_fiber_context> boost_state;
void boost_fiber_body(void*) {
    for (;;) boost_fiber_switch(boost_state.fiber, boost_state.host);
}
#endif

#if CPU_BACKEND_FIBER_HAS_UCONTEXT
ping_pong<ucontext_fiber_context> ucontext_state;
void ucontext_fiber_body(void*) {
    for (;;) ucontext_fiber_switch(ucontext_state.fiber, ucontext_state.host);
}
#endif

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
#if CPU_BACKEND_FIBER_HAS_ASSEMBLY
    double asm_ns = nanoseconds_per_switch(
        asm_state, [](auto& c, void* s, std::size_t n, fiber_entry_fn e, void* a) { asm_fiber_prepare(c, s, n, e, a); },
        [](auto& from, auto& to) { asm_fiber_switch(from, to); }, &asm_fiber_body);
    std::printf("%s switch: %.1f ns per switch\n", asm_fiber_name, asm_ns);
#endif
#if CPU_BACKEND_FIBER_KIND == CPU_BACKEND_FIBER_KIND_BOOST
    double boost_ns = nanoseconds_per_switch(
        boost_state, [](auto& c, void* s, std::size_t n, fiber_entry_fn e, void* a) { boost_fiber_prepare(c, s, n, e, a); },
        [](auto& from, auto& to) { boost_fiber_switch(from, to); }, &boost_fiber_body);
    std::printf("Boost.Context fcontext: %.1f ns per switch\n", boost_ns);
#endif
#if CPU_BACKEND_FIBER_HAS_UCONTEXT
    double uc_ns = nanoseconds_per_switch(
        ucontext_state, [](auto& c, void* s, std::size_t n, fiber_entry_fn e, void* a) { ucontext_fiber_prepare(c, s, n, e, a); },
        [](auto& from, auto& to) { ucontext_fiber_switch(from, to); }, &ucontext_fiber_body);
    std::printf("ucontext swapcontext:   %.1f ns per switch\n", uc_ns);
#endif
    std::printf("backend uses: %s\n", fiber_implementation_name);
    return EXIT_SUCCESS;
}
