// The race detector's bookkeeping (race_detector.hpp): per block, its threads' clocks, the shared
// bytes written since it started, and its shared accesses of the epoch in progress (analysed when
// the epoch ends: at each barrier and at the block's end); per launch, its global accesses
// (analysed when it ends), the knowledge table, and the words that carry a release.
#include <algorithm>

#include "block_scheduler.hpp"
#include "memory_registry.hpp"
#include "race_state.hpp"
#include "recorder.hpp"

namespace cpu_backend::counting::detail::race {

bool enabled = false;
thread_local block_state this_block;
__thread block_state* running = nullptr;
bool any_fence = false;

launch_state& launch() {
    static launch_state* instance = new launch_state;  // never destroyed: read at exit
    return *instance;
}


namespace {

// The global accesses a launch keeps (56 bytes each; a sample read once is one): past them its
// global memory is not checked, and races() says so (races_unchecked()).
constexpr std::size_t kept_global = 8'000'000;

bool one_instruction(const access_record& a, const access_record& b) {
    return a.thread / 32 == b.thread / 32 && a.execution == b.execution;
}

// Keeps r in `records` unless three of its site on its word are kept already (kept_site).
void keep(block_state& b, std::vector<access_record>& records, std::uint32_t& head, const access_record& r) {
    const auto index = static_cast<std::uint32_t>(records.size());
    for (std::uint32_t at = head; at != ~0u; at = b.sites[at].next) {
        kept_site& site = b.sites[at];
        if (site.pc != r.pc || site.op != r.op || site.mask != r.mask) continue;
        const access_record& first = records[site.first];
        if (site.other_thread == ~0u && r.thread != first.thread) {
            site.other_thread = index;
        } else if (site.other_instruction == ~0u && !one_instruction(r, first)) {
            site.other_instruction = index;
        } else {
            return;
        }
        records.push_back(r);
        return;
    }
    kept_site site;
    site.pc = r.pc;
    site.op = r.op;
    site.mask = r.mask;
    site.first = index;
    site.next = head;
    head = static_cast<std::uint32_t>(b.sites.size());
    b.sites.push_back(site);
    records.push_back(r);
}

// The word's slot among the block's shared words (static area, then dynamic).
std::size_t shared_word(const block_state& b, std::uintptr_t word) {
    const std::uintptr_t address = word * 4;
    if (address >= b.dynamic_shared.first && address < b.dynamic_shared.second)
        return (b.static_shared.second - b.static_shared.first) / 4 + 2 + (address - b.dynamic_shared.first) / 4;
    return (address - b.static_shared.first) / 4;
}

// The site of a shared access that three kept accesses stand for already (kept_site): nothing of
// it to keep. The usual case of a loop over shared memory.
bool already_kept(const block_state& b, std::uintptr_t pc, std::uintptr_t address, std::size_t bytes,
                  access_op op) {
    const std::size_t slot = shared_word(b, address / 4);
    if (address % 4 + bytes > 4 || slot >= b.shared_heads.size() || b.shared_heads[slot] >> 32 != b.tag) return false;
    const auto mask = static_cast<std::uint8_t>(((1u << bytes) - 1) << (address % 4));
    for (auto at = static_cast<std::uint32_t>(b.shared_heads[slot]); at != ~0u; at = b.sites[at].next) {
        const kept_site& site = b.sites[at];
        if (site.pc == pc && site.op == op && site.mask == mask)
            return site.other_thread != ~0u && site.other_instruction != ~0u;
    }
    return false;
}

// The interval of an access of block `block` in `epoch` among the block's barrier sites.
void interval(const std::vector<std::uintptr_t>& sites, std::uint32_t epoch, std::uintptr_t& before,
              std::uintptr_t& after) {
    before = epoch > 0 && epoch <= sites.size() ? sites[epoch - 1] : 0;
    after = epoch < sites.size() ? sites[epoch] : 0;
}

// Where a shared witness's word lies, and its interval (the epoch in progress ends at `closing`).
void place_shared(const block_state& b, raw_witness& w, std::uintptr_t closing) {
    const std::uintptr_t address = w.first.word * 4 + static_cast<std::uintptr_t>(__builtin_ctz(w.first.mask | 0x10));
    if (address >= b.dynamic_shared.first && address < b.dynamic_shared.second) {
        w.region = "dynamic";
        w.offset = address - b.dynamic_shared.first;
        w.allocation_bytes = b.dynamic_shared.second - b.dynamic_shared.first;
        launch_state& l = launch();
        std::lock_guard<std::mutex> lock(l.mutex);
        const auto named = l.dynamic_arrays.find(l.kernel);
        if (named != l.dynamic_arrays.end()) w.array_tls = named->second;
    } else {
        w.region = "static";
        w.offset = address - b.static_shared.first;
    }
    for (int side = 0; side < 2; ++side) {
        const std::uint32_t epoch = side == 0 ? w.first.epoch : w.second.epoch;
        w.before[side] = epoch > 0 && epoch <= b.barriers.size() ? b.barriers[epoch - 1] : 0;
        w.after[side] = closing;
    }
}

// The epoch's shared accesses, word by word from the kept sites (all at once, sorted, when some
// carry knowledge: those are kept whole, outside the sites).
void analyse_shared(block_state& b, std::vector<raw_witness>& found) {
    if (b.shared_knowing) {
        analyse(b.shared, found);
        return;
    }
    std::vector<access_record> word;
    for (const std::uintptr_t at : b.touched) {
        word.clear();
        for (std::uint32_t s = static_cast<std::uint32_t>(b.shared_heads[shared_word(b, at)]); s != ~0u;
             s = b.sites[s].next) {
            const kept_site& site = b.sites[s];
            for (const std::uint32_t index : {site.first, site.other_thread, site.other_instruction})
                if (index != ~0u) word.push_back(b.shared[index]);
        }
        analyse_word(word, b.shared, found);
    }
}

void end_epoch(block_state& b, std::uintptr_t closing) {
    std::vector<raw_witness> found;
    confirm_uninitialised(b, found);
    if (!b.shared.empty()) analyse_shared(b, found);
    b.shared.clear();
    b.touched.clear();
    b.shared_knowing = false;
    b.sites.clear();
    b.global_heads.clear();
    ++b.tag;
    if (found.empty()) return;
    for (raw_witness& w : found) place_shared(b, w, closing);
    launch_state& l = launch();
    std::lock_guard<std::mutex> lock(l.mutex);
    for (raw_witness& w : found) l.found.push_back(std::move(w));
}

}  // namespace

void launch_begins(const std::string& kernel, const std::string& file, int line, const std::string& label, dim3 grid,
                   dim3 block) {
    launch_state& l = launch();
    {
        std::lock_guard<std::mutex> lock(l.mutex);
        l.active = enabled;
        l.kernel = kernel;
        l.launched_at = file + ":" + std::to_string(line);
        l.label = label;
        l.grid = grid;
        l.block = block;
        l.global_ranges.clear();
        if (l.active)
            for (const auto& [first, bytes] : cpu_backend::detail::global_memory_ranges())
                l.global_ranges.emplace_back(first, first + bytes);
        l.global_records.clear();
        l.global_unchecked = false;
        l.table.assign(1, knowledge{});
        l.barrier_sites.clear();
        l.syncs.clear();
        l.fenced = false;
        any_fence = false;
        l.blocks_started = 0;
        l.uninitialised_pcs.clear();
        l.found.clear();
    }
    forget_pairs();
}

void block_begins(uint3 index, std::uint32_t threads, range dynamic_shared, range static_shared) {
    block_state& b = this_block;
    launch_state& l = launch();
    {
        std::lock_guard<std::mutex> lock(l.mutex);
        b.running = l.active;
        if (!b.running) return;
        b.block = index.x + l.grid.x * (index.y + l.grid.y * index.z);
        b.seq = static_cast<std::uint64_t>(l.blocks_started++) << 32;
        b.global_room = l.global_unchecked ? 0 : kept_global - std::min(kept_global, l.global_records.size());
    }
    b.threads = threads;
    b.epoch = 0;
    b.dynamic_shared = dynamic_shared;
    b.static_shared = static_shared;
    b.clocks.assign(threads, thread_clock{});
    b.knowing = false;
    b.shared.clear();
    b.global.clear();
    b.barriers.clear();
    b.uninitialised.clear();
    b.sites.clear();
    b.global_heads.clear();
    b.touched.clear();
    b.shared_knowing = false;
    ++b.tag;
    const std::size_t bits =
        (static_shared.second - static_shared.first) + (dynamic_shared.second - dynamic_shared.first);
    b.written.assign((bits + 63) / 64, 0);
    running = &b;
}

void access(std::uint32_t thread, std::uintptr_t pc, std::uintptr_t address, std::size_t bytes, access_op op,
            bool shared, std::uint32_t execution) {
    block_state* const running_block = running;
    if (running_block == nullptr || thread >= running_block->threads) return;
    block_state& b = *running_block;
    if (shared && op == access_op::volatile_load) op = access_op::load;  // the rule for shared memory
    if (shared && op == access_op::volatile_store) op = access_op::store;
    thread_clock& t = b.clocks[thread];
    if (any_fence && strong(op)) synchronise(b, t, address, op);
    const bool uninitialised =
        shared && !written_before(b, address, bytes, writes(op)) && op != access_op::store;
    if (shared && !uninitialised && t.knowledge == 0 && already_kept(b, pc, address, bytes, op)) return;
    access_record r;
    r.pc = pc;
    r.block = b.block;
    r.epoch = b.epoch;
    r.clock = t.clock;
    r.knowledge = t.knowledge;
    r.execution = execution;
    r.thread = static_cast<std::uint16_t>(thread);
    r.op = op;
    r.bytes = static_cast<std::uint8_t>(std::min<std::size_t>(bytes, 255));
    const std::uintptr_t end = address + bytes;
    if (uninitialised) {
        r.word = address / 4;
        r.seq = b.seq;
        const std::size_t low = address % 4, high = std::min<std::size_t>(4, low + bytes);
        r.mask = static_cast<std::uint8_t>(((1u << high) - 1) & ~((1u << low) - 1));
        note_uninitialised(b, r);
    }
    for (std::uintptr_t word = address / 4; word * 4 < end; ++word) {
        const std::uintptr_t low = std::max(address, word * 4) - word * 4,
                             high = std::min(end, word * 4 + 4) - word * 4;
        r.word = word;
        r.seq = b.seq++;
        r.mask = static_cast<std::uint8_t>(((1u << high) - 1) & ~((1u << low) - 1));
        std::vector<access_record>& records = shared ? b.shared : b.global;
        if (r.knowledge != 0 && (shared || b.global.size() < b.global_room)) {
            records.push_back(r);
            b.shared_knowing = b.shared_knowing || shared;
        } else if (shared) {
            const std::size_t slot = shared_word(b, word);
            if (slot >= b.shared_heads.size()) b.shared_heads.resize(slot + 1, 0);
            std::uint64_t& tagged = b.shared_heads[slot];
            std::uint32_t head = ~0u;
            if (tagged >> 32 == b.tag) {
                head = static_cast<std::uint32_t>(tagged);
            } else {
                b.touched.push_back(word);
            }
            keep(b, records, head, r);
            tagged = static_cast<std::uint64_t>(b.tag) << 32 | head;
        } else if (b.global.size() < b.global_room) {
            keep(b, records, b.global_heads.emplace(word, ~0u).first->second, r);
        }
    }
}

void barrier_released(const void* site) {
    block_state& b = this_block;
    if (!b.running) return;
    const auto at = reinterpret_cast<std::uintptr_t>(site);
    end_epoch(b, at);
    b.barriers.push_back(at);
    ++b.epoch;
    share_knowledge(b);
}

void block_ends() {
    block_state& b = this_block;
    if (!b.running) return;
    end_epoch(b, 0);
    b.running = false;
    running = nullptr;
    launch_state& l = launch();
    std::lock_guard<std::mutex> lock(l.mutex);
    if (b.global.size() >= b.global_room) {  // full: the launch's global memory goes unchecked
        l.global_unchecked = true;
        l.global_records.clear();
        l.global_records.shrink_to_fit();
    } else {
        l.global_records.insert(l.global_records.end(), b.global.begin(), b.global.end());
    }
    if (!b.barriers.empty()) l.barrier_sites[b.block] = b.barriers;
    b.global.clear();
}

void launch_ends() {
    launch_state& l = launch();
    if (!l.active) return;
    std::vector<raw_witness> found;
    if (l.global_unchecked) add_unchecked(l.label, l.kernel, l.launched_at);
    analyse(l.global_records, found);
    for (raw_witness& w : found) {
        const std::uintptr_t address =
            w.first.word * 4 + static_cast<std::uintptr_t>(__builtin_ctz(w.first.mask | 0x10));
        w.region = "global";
        auto after =
            std::upper_bound(l.global_ranges.begin(), l.global_ranges.end(), range{address, ~std::uintptr_t{0}});
        if (after != l.global_ranges.begin() && address < std::prev(after)->second) {
            w.offset = address - std::prev(after)->first;
            w.allocation_bytes = std::prev(after)->second - std::prev(after)->first;
        }
        const access_record* sides[2] = {&w.first, &w.second};
        for (int side = 0; side < 2; ++side) {
            const auto sites = l.barrier_sites.find(sides[side]->block);
            if (sites == l.barrier_sites.end()) continue;
            interval(sites->second, sides[side]->epoch, w.before[side], w.after[side]);
        }
        l.found.push_back(std::move(w));
    }
    add_witnesses(std::move(l.found), l.label, l.kernel, l.launched_at, l.grid, l.block);
    l.found.clear();
    l.global_records.clear();
    l.global_records.shrink_to_fit();
    l.table.assign(1, knowledge{});
    l.syncs.clear();
    l.active = false;
}

void name_dynamic_shared(const void* pointer_variable) {
    const std::pair<std::uintptr_t, std::uintptr_t> tls = program_tls_block();
    const auto at = reinterpret_cast<std::uintptr_t>(pointer_variable);
    if (at < tls.first || at >= tls.second) return;
    launch_state& l = launch();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.dynamic_arrays.emplace(l.kernel, 1 + (at - tls.first));
}

}  // namespace cpu_backend::counting::detail::race
