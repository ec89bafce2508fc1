// The accesses of the block a host thread runs, grouped into warp-level requests when it ends.
#include "recorder.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "access_rules.hpp"
#include "block_scheduler.hpp"
#include "cpu_backend/builtin_variables.hpp"
#include "memory_registry.hpp"

namespace cpu_backend::counting::detail {
namespace {

using range = std::pair<std::uintptr_t, std::uintptr_t>;  // [first, end)

// The lanes of one warp-level request gathered so far. Their addresses are kept as a line,
// address(lane) = first + (lane - first_lane) * stride (a broadcast, a coalesced access), until a
// lane breaks it; then as a list of 32 in the block's pool. A thread-per-bin scan opens thousands
// of requests per warp before their last lane runs: small slots keep them in the cache.
struct slot {
    std::uintptr_t first = 0;
    std::intptr_t stride = 0;
    std::uint32_t mask = 0;
    std::uint32_t list = 0;  // 0 while a line, else 1 + the index of its list in the pool
    std::uint8_t count = 0, first_lane = 0, bytes = 0;
    std::uint8_t trace_place = 0;  // CUDA_CPU_BACKEND_TRACE's warp: 1 + its place in the trace (0xff: no lane yet)
    bool done = false, stride_known = false;

    std::uintptr_t on_line(std::uint32_t lane) const {
        return first + static_cast<std::uintptr_t>((static_cast<std::intptr_t>(lane) - first_lane) * stride);
    }
};
using address_list = std::array<std::uintptr_t, 32>;

// The open requests of one site and warp, a ring: its i-th slot, at ring[(head + i) & (size - 1)],
// gathers the (base + i)-th execution of the site by the warp's lanes.
struct window {
    std::uint64_t base = 0;
    std::uint32_t head = 0, used = 0;
    std::vector<slot> ring;
    bool traced = false;  // the warp CUDA_CPU_BACKEND_TRACE follows: its slots are numbered as lanes open them

    slot& at(std::uint64_t i) {
        if (i >= ring.size()) grow(i + 1);
        while (used <= i) {
            slot& made = ring[(head + used++) & (ring.size() - 1)] = slot{};
            if (traced) made.trace_place = 0xff;
        }
        return ring[(head + i) & (ring.size() - 1)];
    }
    void grow(std::uint64_t needed) {
        std::size_t size = ring.empty() ? 4 : ring.size();
        while (size < needed) size *= 2;
        std::vector<slot> bigger(size);
        for (std::uint32_t i = 0; i < used; ++i) bigger[i] = ring[(head + i) & (ring.size() - 1)];
        ring.swap(bigger);
        head = 0;
    }
    void pop_done() {
        while (used > 0 && ring[head].done) {
            head = (head + 1) & static_cast<std::uint32_t>(ring.size() - 1);
            --used;
            ++base;
        }
    }
};

// A lane's execution of a site joins the site's requests by its count of executions of the site
// since the last barrier, unless the lane's previous access was at another site it has executed
// more often: then by that anchor's count, and the site's count jumps to it. So a conditional
// access in a loop (if (s[b] != 0) atomicAdd(&bins[b], s[b])) groups the lanes of one iteration, as
// the warp executes it, whichever iterations each lane skipped, rather than each lane's k-th hit.
struct site_state {
    detail::site_key key;
    std::vector<std::uint32_t> executions;  // per thread of the block, since the last barrier
    std::vector<window> windows;            // per warp (empty until the site's first access)
    site_counts counts;
};

struct block_state {
    bool running = false;
    std::uint32_t threads = 0;
    range dynamic_shared{0, 0};
    range tls{0, 0};                        // this host thread's static TLS: __shared__ variables
    std::vector<range> tls_not_shared;      // threadIdx & co., extern __shared__ pointers
    std::vector<site_state> sites;
    std::vector<std::uint32_t> last_site;  // per thread: its previous access's site (~0u: none)
    std::vector<address_list> lists;
    std::vector<std::uint32_t> free_lists;
    std::unordered_map<std::uint64_t, std::uint32_t> site_index;  // hash of the key -> first site
    std::uint32_t cache[256];  // a direct-mapped cache of site_index (~0u: empty)
    std::uint64_t barriers = 0;
    std::map<std::uintptr_t, std::uint64_t> shuffle_lanes;  // per call site of a shuffle intrinsic
    std::uint32_t traced_warp = ~0u;  // the warp CUDA_CPU_BACKEND_TRACE follows here (~0u: none)
};

thread_local block_state state_of_this_thread;
__thread block_state* current_state = nullptr;  // a plain TLS word: no initialisation check per access
#define state (*current_state)
std::vector<range> global_ranges;  // read-only while a launch runs

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

// Counted as the hardware executes them: a failed compare-and-swap is an atomic, a volatile
// access a plain one.
access_kind kind_of(int space, access_op op) {
    const int base = space == 1 ? 0 : 3;
    const int executed = op == access_op::load || op == access_op::volatile_load     ? 0
                         : op == access_op::store || op == access_op::volatile_store ? 1
                                                                                     : 2;
    return static_cast<access_kind>(base + executed);
}

std::uint32_t warp_lanes(std::uint32_t warp) { return std::min<std::uint32_t>(32, state.threads - warp * 32); }

void add_request(site_counts& site, const slot& gathered, std::uint32_t lanes_in_warp) {
    lane_access lanes[32];
    std::size_t count = 0;
    for (std::uint32_t mask = gathered.mask; mask != 0; mask &= mask - 1) {
        const auto lane = static_cast<std::uint32_t>(__builtin_ctz(mask));
        const std::uintptr_t address = gathered.list ? state.lists[gathered.list - 1][lane] : gathered.on_line(lane);
        lanes[count++] = {lane, address, gathered.bytes};
    }
    if (gathered.list) state.free_lists.push_back(gathered.list - 1);
    if (gathered.trace_place) trace_request(gathered.trace_place - 1u, site, lanes, count);
    site.requests += 1;
    site.lanes += count;
    if (count < lanes_in_warp) site.partial_requests += 1;
    switch (site.kind) {
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

std::uint64_t key_hash(std::uintptr_t pc, std::uint32_t part, access_kind kind) {
    return (static_cast<std::uint64_t>(pc) << 8) ^ (static_cast<std::uint64_t>(part) << 3) ^ static_cast<std::uint64_t>(kind);
}

site_state& site_of(std::uintptr_t pc, std::uint32_t part, access_kind kind, std::uint8_t bytes) {
    const detail::site_key key{pc, part, kind};
    const std::uint64_t hash = key_hash(pc, part, kind);
    std::uint32_t& cached = state.cache[(hash ^ (hash >> 8)) & 255];
    if (cached < state.sites.size() && state.sites[cached].key == key) return state.sites[cached];
    auto found = state.site_index.find(hash);
    for (std::uint32_t i = found == state.site_index.end() ? ~0u : found->second; i < state.sites.size(); ++i) {
        if (state.sites[i].key == key) return state.sites[cached = i];
    }
    site_state added;
    added.key = key;
    added.executions.assign(state.threads, 0);
    added.counts.pc = pc;  // absolute until the launch ends (for trace_request)
    added.counts.kind = kind;
    added.counts.bytes = bytes;
    state.sites.push_back(std::move(added));
    cached = static_cast<std::uint32_t>(state.sites.size() - 1);
    state.site_index.emplace(hash, cached);  // keeps the first site of a hash: later ones follow it
    return state.sites.back();
}

void make_list(slot& s) {
    std::uint32_t index;
    if (!state.free_lists.empty()) {
        index = state.free_lists.back();
        state.free_lists.pop_back();
    } else {
        index = static_cast<std::uint32_t>(state.lists.size());
        state.lists.emplace_back();
    }
    for (std::uint32_t mask = s.mask; mask != 0; mask &= mask - 1) {
        const auto lane = static_cast<std::uint32_t>(__builtin_ctz(mask));
        state.lists[index][lane] = s.on_line(lane);
    }
    s.list = index + 1;
}

void add_lane(slot& s, std::uint32_t lane, std::uintptr_t address, std::uint8_t bytes) {
    if (s.count == 0) {
        s.first = address;
        s.first_lane = static_cast<std::uint8_t>(lane);
        s.bytes = bytes;
        if (s.trace_place) s.trace_place = trace_next_place();
    } else if (s.list == 0) {
        const auto distance = static_cast<std::intptr_t>(address - s.first);
        const std::intptr_t lanes_apart = static_cast<std::intptr_t>(lane) - s.first_lane;
        if (!s.stride_known && distance % lanes_apart == 0) {
            s.stride = distance / lanes_apart;
            s.stride_known = true;
        } else if (!s.stride_known || s.on_line(lane) != address) {
            make_list(s);
        }
    }
    if (s.list) state.lists[s.list - 1][lane] = address;
    if (bytes > s.bytes) s.bytes = bytes;
    s.mask |= 1u << lane;
    ++s.count;
}

// The k-th execution of a site by each lane of a warp is one request: complete once every lane
// of the warp has executed it; the rest are completed when the block ends. Returns k (the race
// detector's "one warp instruction"); groups the request only while counting.
std::uint32_t add_access(std::uintptr_t pc, std::uint32_t part, access_kind kind, std::uint32_t thread,
                         std::uintptr_t address, std::uint8_t bytes) {
    site_state& site = site_of(pc, part, kind, bytes);
    const auto self = static_cast<std::uint32_t>(&site - state.sites.data());
    const std::uint32_t warp = thread / 32, lane = thread % 32;
    std::uint64_t k = site.executions[thread];
    const std::uint32_t last = state.last_site[thread];
    if (last != self && last < state.sites.size() && state.sites[last].executions[thread] > k + 1)
        k = state.sites[last].executions[thread] - 1;
    site.executions[thread] = static_cast<std::uint32_t>(k + 1);
    state.last_site[thread] = self;
    if (!counting_on) return static_cast<std::uint32_t>(k);
    if (site.windows.empty()) {
        site.windows.resize((state.threads + 31) / 32);
        if (state.traced_warp < site.windows.size()) site.windows[state.traced_warp].traced = true;
    }
    window& w = site.windows[warp];
    slot& s = w.at(k - w.base);
    add_lane(s, lane, address, bytes);
    const std::uint32_t lanes_in_warp = warp_lanes(warp);
    if (s.count == lanes_in_warp) {
        add_request(site.counts, s, lanes_in_warp);
        s.done = true;
        w.pop_done();
    }
    return static_cast<std::uint32_t>(k);
}

// At a barrier every lane has passed all it will execute before it: the open requests are done
// (those of divergent code, with fewer lanes than the warp), and counts start again.
void close_epoch() {
    for (site_state& site : state.sites) {
        for (std::uint32_t warp = 0; warp < site.windows.size(); ++warp) {
            window& w = site.windows[warp];
            for (std::uint32_t i = 0; i < w.used; ++i) {
                const slot& s = w.ring[(w.head + i) & (w.ring.size() - 1)];
                if (!s.done && s.mask != 0) add_request(site.counts, s, warp_lanes(warp));
            }
            w = window{};
            w.traced = warp == state.traced_warp;
        }
        std::fill(site.executions.begin(), site.executions.end(), 0u);
    }
    std::fill(state.last_site.begin(), state.last_site.end(), ~0u);
    state.lists.clear();
    state.free_lists.clear();
}

void finish_block() {
    close_epoch();
    site_map sites;
    if (counting_on) {
        for (site_state& site : state.sites) sites.emplace(site.key, site.counts);
        for (const auto& [pc, lanes] : state.shuffle_lanes) {
            site_counts counts;
            counts.kind = access_kind::shuffle;
            counts.lanes = lanes;
            counts.requests = (lanes + 31) / 32;  // at least one call a warp per 32 lanes
            sites.emplace(site_key{pc, 0, access_kind::shuffle}, counts);
        }
    }
    state.shuffle_lanes.clear();
    add_block(sites, state.barriers);
    state.sites.clear();
    state.site_index.clear();
    state.lists.clear();
    state.free_lists.clear();
}

}  // namespace

// The recorder's part of each launch_observer call (observer.cpp).
void recorder_launch_begins(const cpu_backend::detail::launch_config& config,
                            const cpu_backend::detail::kernel_site& site) {
    global_ranges.clear();
    for (const auto& [first, bytes] : cpu_backend::detail::global_memory_ranges())
        global_ranges.emplace_back(first, first + bytes);
    begin_launch(site.kernel_name, function_symbol(site.address), site.file, site.line, config.grid, config.block,
                 config.dynamic_shared_bytes);
}

std::pair<range, range> recorder_block_begins(uint3 block, std::uint32_t threads, const void* dynamic_shared,
                                              std::size_t bytes) {
    current_state = &state_of_this_thread;
    const auto shared = reinterpret_cast<std::uintptr_t>(dynamic_shared);
    state.threads = threads;
    state.dynamic_shared = {shared, shared + bytes};
    if (state.tls.first == 0) {
        state.tls = program_tls_block();
        for (range r : {range_of(threadIdx), range_of(blockIdx), range_of(blockDim), range_of(gridDim)})
            state.tls_not_shared.push_back(r);
        static const std::vector<range> guards = tls_guard_offsets();
        for (const range& r : guards)
            state.tls_not_shared.emplace_back(state.tls.first + r.first, state.tls.first + r.second);
    }
    state.traced_warp = trace_block_begins(block, state.dynamic_shared, state.tls.first);
    state.barriers = 0;
    state.last_site.assign(threads, ~0u);
    state.sites.clear();
    state.site_index.clear();
    std::fill(std::begin(state.cache), std::end(state.cache), ~0u);
    state.running = true;
    return {state.dynamic_shared, state.tls};
}

void recorder_barrier_released() {
    ++state.barriers;
    close_epoch();
}

void recorder_block_ends() {
    state.running = false;
    finish_block();
}

void recorder_shuffle_called(const void* pc) {
    if (!counting_on || current_state == nullptr || !state.running) return;
    ++state.shuffle_lanes[reinterpret_cast<std::uintptr_t>(pc)];
}

bool recording = true;
bool counting_on = true;

void record(const void* pc, const void* address, std::size_t bytes, access_op op) {
    if (!recording || current_state == nullptr || !state.running) return;
    const auto a = reinterpret_cast<std::uintptr_t>(address);
    const int space = classify(a);
    if (space == 0) return;
    const std::uint32_t thread = cpu_backend::detail::current_scheduler()->current_thread();
    const auto site = reinterpret_cast<std::uintptr_t>(pc);
    std::uint32_t execution = 0;
    // Not counting, the detector needs the site's execution only for plain stores (one warp
    // instruction's lanes storing to one word do not race).
    if (!counting_on && op != access_op::store) {
        race::access(thread, site, a, bytes, op, space == 2, 0);
        return;
    }
    for (std::uint32_t part = 0; part * 16 < bytes; ++part) {
        const std::size_t piece = std::min<std::size_t>(16, bytes - part * 16);
        const std::uint32_t k =
            add_access(site, part, kind_of(space, op), thread, a + part * 16, static_cast<std::uint8_t>(piece));
        if (part == 0) execution = k;
    }
    if (race::enabled) race::access(thread, site, a, bytes, op, space == 2, execution);
}

}  // namespace cpu_backend::counting::detail

namespace cpu_backend::counting {

void* dynamic_shared_memory_for(const void* pointer_variable) {
    const auto first = reinterpret_cast<std::uintptr_t>(pointer_variable);
    if (detail::current_state) detail::current_state->tls_not_shared.emplace_back(first, first + sizeof(void*));
    detail::race::name_dynamic_shared(pointer_variable);
    return cpu_backend::detail::dynamic_shared_memory();
}

}  // namespace cpu_backend::counting
