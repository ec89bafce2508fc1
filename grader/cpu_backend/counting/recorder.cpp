// The accesses of the block a host thread runs, grouped into warp-level requests when it ends.
#include "recorder.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "access_rules.hpp"
#include "block_scheduler.hpp"
#include "cpu_backend/builtin_variables.hpp"
#include "cpu_backend/control.hpp"
#include "launch_observer.hpp"
#include "memory_registry.hpp"

namespace cpu_backend::counting::detail {
namespace {

using range = std::pair<std::uintptr_t, std::uintptr_t>;  // [first, end)

struct event {
    std::uintptr_t pc;
    std::uintptr_t address;
    std::uint32_t thread;  // linear index in the block
    std::uint32_t k;       // which execution of the site by this thread (set when the block ends)
    std::uint32_t part;    // 16-byte part of a wider copy
    std::uint8_t bytes;
    access_kind kind;
};

struct block_state {
    bool running = false;
    std::uint32_t threads = 0;
    range dynamic_shared{0, 0};
    range tls{0, 0};                        // this host thread's static TLS: __shared__ variables
    std::vector<range> tls_not_shared;      // threadIdx & co., extern __shared__ pointers
    std::vector<event> events;
    std::uint64_t barriers = 0;
};

thread_local block_state state;
std::vector<range> global_ranges;  // read-only while a launch runs

std::size_t program_tls_bytes() {
    static const std::size_t bytes = [] {
        std::size_t found = 0;
        dl_iterate_phdr(
            [](dl_phdr_info* info, std::size_t, void* out) {
                for (int i = 0; i < info->dlpi_phnum; ++i) {
                    if (info->dlpi_phdr[i].p_type == PT_TLS) *static_cast<std::size_t*>(out) = info->dlpi_phdr[i].p_memsz;
                }
                return 1;  // the first object is the program itself
            },
            &found);
        return found;
    }();
    return bytes;
}

range program_tls_block() {
    void* block = nullptr;
    if (void* self = dlopen(nullptr, RTLD_NOW | RTLD_NOLOAD)) dlinfo(self, RTLD_DI_TLS_DATA, &block);
    const auto first = reinterpret_cast<std::uintptr_t>(block);
    return first ? range{first, first + program_tls_bytes()} : range{0, 0};
}

template <class T>
range range_of(const T& variable) {
    const auto first = reinterpret_cast<std::uintptr_t>(&variable);
    return {first, first + sizeof(T)};
}

bool inside(const range& r, std::uintptr_t a) { return a >= r.first && a < r.second; }

// 0: not counted, 1: global, 2: shared.
int classify(std::uintptr_t a) {
    if (inside(state.dynamic_shared, a)) return 2;
    if (inside(state.tls, a)) {
        for (const range& r : state.tls_not_shared)
            if (inside(r, a)) return 0;
        return 2;
    }
    auto after = std::upper_bound(global_ranges.begin(), global_ranges.end(), range{a, ~std::uintptr_t{0}});
    if (after == global_ranges.begin()) return 0;
    return inside(*std::prev(after), a) ? 1 : 0;
}

access_kind kind_of(int space, access_op op) {
    const int base = space == 1 ? 0 : 3;
    return static_cast<access_kind>(base + static_cast<int>(op));
}

void add_request(site_map& sites, const event* first, std::size_t count, std::uint32_t warp_lanes) {
    lane_access lanes[32];
    for (std::size_t i = 0; i < count; ++i) lanes[i] = {first[i].thread % 32, first[i].address, first[i].bytes};
    site_counts& site = sites[site_key{first->pc, first->part, first->kind}];
    site.kind = first->kind;
    site.bytes = first->bytes;
    site.requests += 1;
    site.lanes += count;
    if (count < warp_lanes) site.partial_requests += 1;
    switch (first->kind) {
        case access_kind::global_load:
        case access_kind::global_store: site.sectors += global_sectors(lanes, count); break;
        case access_kind::shared_load:
        case access_kind::shared_store: {
            const shared_cost cost = shared_wavefronts(lanes, count);
            site.wavefronts += cost.wavefronts;
            site.bank_conflicts += cost.bank_conflicts;
            break;
        }
        default: site.distinct_addresses += distinct_addresses(lanes, count);
    }
}

// Lane groups: the k-th execution of a site by each lane of a warp is one request.
void finish_block() {
    std::vector<event>& events = state.events;
    auto site_then_thread = [](const event& a, const event& b) {
        return std::tie(a.pc, a.part, a.kind, a.thread) < std::tie(b.pc, b.part, b.kind, b.thread);
    };
    std::stable_sort(events.begin(), events.end(), site_then_thread);
    for (std::size_t i = 0; i < events.size(); ++i)
        events[i].k = i > 0 && !site_then_thread(events[i - 1], events[i]) ? events[i - 1].k + 1 : 0;
    auto request_order = [](const event& a, const event& b) {
        return std::make_tuple(a.pc, a.part, a.kind, a.thread / 32, a.k, a.thread) <
               std::make_tuple(b.pc, b.part, b.kind, b.thread / 32, b.k, b.thread);
    };
    std::sort(events.begin(), events.end(), request_order);
    site_map sites;
    for (std::size_t i = 0; i < events.size();) {
        std::size_t j = i + 1;
        while (j < events.size() && events[j].pc == events[i].pc && events[j].part == events[i].part &&
               events[j].kind == events[i].kind && events[j].thread / 32 == events[i].thread / 32 &&
               events[j].k == events[i].k)
            ++j;
        const std::uint32_t warp_first = events[i].thread / 32 * 32;
        add_request(sites, &events[i], j - i, std::min<std::uint32_t>(32, state.threads - warp_first));
        i = j;
    }
    add_block(sites, state.barriers);
    events.clear();
}

class counting_observer final : public cpu_backend::detail::launch_observer {
public:
    void launch_begin(const cpu_backend::detail::launch_config& config,
                      const cpu_backend::detail::kernel_site& site) override {
        global_ranges.clear();
        for (const auto& [first, bytes] : cpu_backend::detail::global_memory_ranges())
            global_ranges.emplace_back(first, first + bytes);
        begin_launch(site.kernel_name, site.file, site.line, config.grid, config.block, config.dynamic_shared_bytes);
    }
    void block_begin(uint3, std::uint32_t threads, const void* dynamic_shared, std::size_t bytes) override {
        const auto shared = reinterpret_cast<std::uintptr_t>(dynamic_shared);
        state.threads = threads;
        state.dynamic_shared = {shared, shared + bytes};
        if (state.tls.first == 0) {
            state.tls = program_tls_block();
            for (range r : {range_of(threadIdx), range_of(blockIdx), range_of(blockDim), range_of(gridDim)})
                state.tls_not_shared.push_back(r);
        }
        state.barriers = 0;
        state.events.clear();
        state.running = true;
    }
    void barrier_released() override { ++state.barriers; }
    void block_end(bool) override {
        state.running = false;
        finish_block();
    }
    void launch_end(bool faulted) override { end_launch(faulted); }
};

counting_observer observer;

// Counting mode runs blocks on one host thread: the counts then do not depend on timing (a CAS
// loop never retries because another block changed the word in between).
const bool installed = [] {
    cpu_backend::set_host_threads(1);
    cpu_backend::detail::set_launch_observer(&observer);
    return true;
}();

}  // namespace

void record(const void* pc, const void* address, std::size_t bytes, access_op op) {
    if (!state.running) return;
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    const int space = classify(a);
    if (space == 0) return;
    const std::uint32_t thread = cpu_backend::detail::current_scheduler()->current_thread();
    const auto site = reinterpret_cast<std::uintptr_t>(pc);
    for (std::uint32_t part = 0; part * 16 < bytes; ++part) {
        const std::size_t piece = std::min<std::size_t>(16, bytes - part * 16);
        state.events.push_back({site, a + part * 16, thread, 0, part, static_cast<std::uint8_t>(piece), kind_of(space, op)});
    }
}

}  // namespace cpu_backend::counting::detail

namespace cpu_backend::counting {

void* dynamic_shared_memory_for(const void* pointer_variable) {
    const auto first = reinterpret_cast<std::uintptr_t>(pointer_variable);
    detail::state.tls_not_shared.emplace_back(first, first + sizeof(void*));
    return cpu_backend::detail::dynamic_shared_memory();
}

}  // namespace cpu_backend::counting
