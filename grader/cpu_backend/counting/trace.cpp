// CUDA_CPU_BACKEND_TRACE: the first accesses of one warp, lane by lane, as the warp-level requests
// recorder.cpp makes for the counts (the backend's README.md, "Counting mode"). recorder.cpp numbers
// the first 64 requests the warp opens and hands each here when it is complete. Without the
// variable, what runs is a check at each launch and block here, and one as a request opens or ends.
#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "recorder.hpp"

namespace cpu_backend::counting {
namespace {

constexpr unsigned most_accesses = 64;

struct tracer {
    std::mutex mutex;              // launches and the final read; accesses come from one block's thread
    bool asked = false;
    bool this_launch = false;      // the launch running is the one to trace
    warp_trace trace;
    dim3 grid;
    std::pair<std::uintptr_t, std::uintptr_t> dynamic_shared{0, 0};
    std::uintptr_t tls_first = 0;  // static __shared__ offsets are from here until the trace is read
    unsigned opened = 0;           // requests of the traced warp opened so far
};

bool number(const std::string& text, unsigned long long& out) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return false;
    out = std::strtoull(text.c_str(), nullptr, 10);
    return true;
}

// LABEL, or LABEL:BLOCK:WARP.
void parse(tracer& t, const char* variable) {
    if (variable == nullptr || *variable == '\0') return;
    const std::string text(variable);
    const std::size_t second = text.rfind(':');
    const std::size_t first = second == std::string::npos || second == 0 ? std::string::npos : text.rfind(':', second - 1);
    unsigned long long block = 0, warp = 0;
    if (first == std::string::npos && second == std::string::npos) {
        t.trace.label = text;
    } else if (first != std::string::npos && first > 0 && number(text.substr(first + 1, second - first - 1), block) &&
               number(text.substr(second + 1), warp) && warp < 32) {
        t.trace.label = text.substr(0, first);
    } else {
        std::fprintf(stderr, "counting mode: CUDA_CPU_BACKEND_TRACE=%s is not LABEL or LABEL:BLOCK:WARP (warp < 32)\n",
                     variable);
        return;
    }
    t.trace.block = block;
    t.trace.warp = static_cast<std::uint32_t>(warp);
    t.asked = true;
}

tracer& the_tracer() {
    static tracer* instance = [] {
        auto* t = new tracer;  // never destroyed: read at exit
        parse(*t, std::getenv("CUDA_CPU_BACKEND_TRACE"));
        return t;
    }();
    return *instance;
}

}  // namespace

namespace detail {

void trace_launch_begins(const std::string& kernel, const std::string& label, dim3 grid) {
    tracer& t = the_tracer();
    if (!t.asked) return;
    std::lock_guard<std::mutex> lock(t.mutex);
    t.this_launch = t.trace.kernel.empty() && label == t.trace.label;
    if (!t.this_launch) return;
    t.trace.kernel = kernel;
    t.grid = grid;
}

void trace_launch_ends() {
    tracer& t = the_tracer();
    if (!t.asked) return;
    std::lock_guard<std::mutex> lock(t.mutex);
    t.this_launch = false;
}

std::uint32_t trace_block_begins(uint3 block, std::pair<std::uintptr_t, std::uintptr_t> dynamic_shared,
                                 std::uintptr_t tls_first) {
    tracer& t = the_tracer();
    if (!t.asked || !t.this_launch) return ~0u;
    const std::uint64_t linear = block.x + std::uint64_t{t.grid.x} * (block.y + std::uint64_t{t.grid.y} * block.z);
    if (linear != t.trace.block) return ~0u;
    t.dynamic_shared = dynamic_shared;
    t.tls_first = tls_first;
    t.opened = 0;
    return t.trace.warp;
}

std::uint8_t trace_next_place() {
    tracer& t = the_tracer();
    return t.opened < most_accesses ? static_cast<std::uint8_t>(++t.opened) : 0;
}

void trace_request(std::uint32_t place, const site_counts& site, const lane_access* lanes, std::size_t count) {
    tracer& t = the_tracer();
    if (t.trace.accesses.size() <= place) t.trace.accesses.resize(place + 1);
    traced_access& a = t.trace.accesses[place];
    a.pc = site.pc - load_base();
    a.kind = site.kind;
    a.bytes = site.bytes;
    const bool shared = site.kind == access_kind::shared_load || site.kind == access_kind::shared_store ||
                        site.kind == access_kind::shared_atomic;
    const bool dynamic = count > 0 && lanes[0].address >= t.dynamic_shared.first &&
                         lanes[0].address < t.dynamic_shared.second;
    a.region = !shared ? "global" : dynamic ? "dynamic" : "static";
    const std::uintptr_t base = !shared ? 0 : dynamic ? t.dynamic_shared.first : t.tls_first;
    for (std::size_t i = 0; i < count; ++i) {
        a.address[lanes[i].lane] = lanes[i].address - base;
        a.mask |= 1u << lanes[i].lane;
        if (lanes[i].bytes > a.bytes) a.bytes = lanes[i].bytes;
    }
}

}  // namespace detail

namespace {

// Static __shared__ offsets, from the TLS block's start, made offsets into their variable.
void name_variables(std::vector<traced_access>& accesses) {
    std::vector<detail::tls_symbol> symbols;
    for (traced_access& a : accesses) {
        if (a.region[0] != 's' || a.mask == 0) continue;
        if (symbols.empty()) symbols = detail::tls_symbols();
        std::uintptr_t lowest = ~std::uintptr_t{0};
        for (std::uint32_t lane = 0; lane < 32; ++lane)
            if (a.mask >> lane & 1u) lowest = std::min(lowest, a.address[lane]);
        const auto found = std::find_if(symbols.begin(), symbols.end(), [&](const detail::tls_symbol& s) {
            return lowest >= s.first && lowest < s.end && s.name.rfind("_ZGV", 0) != 0;
        });
        if (found == symbols.end()) continue;  // offsets stay from the TLS block's start
        int status = 0;
        char* readable = abi::__cxa_demangle(found->name.c_str(), nullptr, nullptr, &status);
        a.variable = status == 0 && readable ? readable : found->name;
        std::free(readable);
        for (std::uint32_t lane = 0; lane < 32; ++lane)
            if (a.mask >> lane & 1u) a.address[lane] -= found->first;
    }
}

}  // namespace

std::optional<warp_trace> traced_warp() {
    tracer& t = the_tracer();
    if (!t.asked) return std::nullopt;
    std::lock_guard<std::mutex> lock(t.mutex);
    warp_trace copy = t.trace;
    copy.accesses.clear();  // a place no request filled would be an empty access: leave it out
    for (const traced_access& a : t.trace.accesses)
        if (a.mask != 0) copy.accesses.push_back(a);
    name_variables(copy.accesses);
    return copy;
}

}  // namespace cpu_backend::counting
