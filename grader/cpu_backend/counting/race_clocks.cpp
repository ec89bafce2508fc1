// What orders accesses (race_detector.hpp): the knowledge table, __syncwarp(), fences, and the
// releases and acquires of strong accesses; the happens-before test the analysis asks.
#include <algorithm>

#include "block_scheduler.hpp"
#include "race_state.hpp"

namespace cpu_backend::counting::detail::race {

std::uint32_t add(knowledge&& k) {
    if (k.clocks.empty() && k.epochs.empty()) return 0;
    launch_state& l = launch();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.table.push_back(std::move(k));
    return static_cast<std::uint32_t>(l.table.size() - 1);
}

namespace {

template <class Entries>
Entries merged(const Entries& a, const Entries& b) {
    Entries out;
    out.reserve(a.size() + b.size());
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
            out.push_back(a[i++]);
        } else if (i == a.size() || b[j].first < a[i].first) {
            out.push_back(b[j++]);
        } else {
            out.emplace_back(a[i].first, std::max(a[i].second, b[j].second));
            ++i, ++j;
        }
    }
    return out;
}

}  // namespace

std::uint32_t join(std::uint32_t a, std::uint32_t b) {
    if (a == 0 || a == b) return b;
    if (b == 0) return a;
    const knowledge &x = knowledge_of(a), &y = knowledge_of(b);
    return add({merged(x.clocks, y.clocks), merged(x.epochs, y.epochs)});
}

namespace {

// Without the block's own entries: after a barrier its epochs order them.
std::uint32_t without_block(std::uint32_t id, std::uint32_t block) {
    if (id == 0) return 0;
    knowledge k = knowledge_of(id);
    k.clocks.erase(
        std::remove_if(k.clocks.begin(), k.clocks.end(), [&](const auto& c) { return c.first >> 16 == block; }),
        k.clocks.end());
    k.epochs.erase(std::remove_if(k.epochs.begin(), k.epochs.end(), [&](const auto& e) { return e.first == block; }),
                   k.epochs.end());
    return add(std::move(k));
}

}  // namespace

// Releases and acquires through strong accesses (race_detector.hpp), once a fence ran.
void synchronise(block_state& b, thread_clock& t, std::uintptr_t address, access_op op) {
    launch_state& l = launch();
    std::unique_lock<std::mutex> lock(l.mutex);
    if (!l.fenced) return;
    const std::uintptr_t word = address / 4;
    auto found = l.syncs.find(word);
    if (op != access_op::volatile_store && found != l.syncs.end() && found->second.knowledge != 0) {
        const sync_word s = found->second;
        lock.unlock();
        if (s.block == b.block) {
            t.pending_same = join(t.pending_same, s.knowledge);
        } else if (s.device) {
            t.pending_other = join(t.pending_other, s.knowledge);
        }
        lock.lock();
        found = l.syncs.find(word);
    }
    if (!writes(op)) return;
    if (op == access_op::volatile_store || found == l.syncs.end()) {
        if (t.fenced) {
            l.syncs[word] = {t.release, b.block, t.release_device};
        } else {
            l.syncs.erase(word);
        }
    } else if (t.fenced) {
        sync_word s = found->second;
        lock.unlock();
        s.knowledge = join(s.knowledge, t.release);
        s.block = s.block == b.block ? b.block : ~0u;
        s.device = s.device && t.release_device;
        lock.lock();
        l.syncs[word] = s;
    }
}

const knowledge& knowledge_of(std::uint32_t id) {
    launch_state& l = launch();
    std::lock_guard<std::mutex> lock(l.mutex);
    return l.table[id];
}

bool happens_before(const access_record& a, const access_record& b) {
    if (a.block == b.block && a.epoch < b.epoch) return true;
    if (b.knowledge == 0) return false;
    const knowledge& k = knowledge_of(b.knowledge);
    const auto e = std::lower_bound(k.epochs.begin(), k.epochs.end(), std::make_pair(a.block, std::uint32_t{0}));
    if (e != k.epochs.end() && e->first == a.block && e->second > a.epoch) return true;
    const std::uint64_t key = thread_key(a.block, a.thread);
    const auto c = std::lower_bound(k.clocks.begin(), k.clocks.end(), std::make_pair(key, std::uint32_t{0}));
    return c != k.clocks.end() && c->first == key && c->second > a.clock;
}

bool ordered(const access_record& a, const access_record& b) { return happens_before(a, b) || happens_before(b, a); }

void warp_synchronized(std::uint32_t warp, std::uint32_t mask) {
    block_state& b = this_block;
    if (!b.running) return;
    knowledge lanes;
    std::uint32_t known = 0;
    for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1) {
        const std::uint32_t thread = warp * 32 + static_cast<std::uint32_t>(__builtin_ctz(rest));
        if (thread >= b.threads) continue;
        known = join(known, b.clocks[thread].knowledge);
        lanes.clocks.emplace_back(thread_key(b.block, thread), b.clocks[thread].clock + 1);
    }
    known = join(known, add(std::move(lanes)));
    for (std::uint32_t rest = mask; rest != 0; rest &= rest - 1) {
        const std::uint32_t thread = warp * 32 + static_cast<std::uint32_t>(__builtin_ctz(rest));
        if (thread >= b.threads) continue;
        b.clocks[thread].knowledge = known;
        ++b.clocks[thread].clock;
    }
    b.knowing = b.knowing || known != 0;
}

void fence(bool device) {
    block_state& b = this_block;
    const auto* scheduler = cpu_backend::detail::current_scheduler();
    if (!b.running || scheduler == nullptr || scheduler->current_thread() >= b.threads) return;
    const std::uint32_t thread = scheduler->current_thread();
    {
        std::lock_guard<std::mutex> lock(launch().mutex);
        launch().fenced = true;
        any_fence = true;
    }
    thread_clock& t = b.clocks[thread];
    std::uint32_t known = join(t.knowledge, t.pending_same);
    t.pending_same = 0;
    if (device) {
        known = join(known, t.pending_other);
        t.pending_other = 0;
    }
    t.knowledge = known;
    b.knowing = b.knowing || known != 0;
    knowledge own;
    own.clocks.emplace_back(thread_key(b.block, thread), t.clock + 1);
    own.epochs.emplace_back(b.block, b.epoch);
    t.release = join(known, add(std::move(own)));
    t.release_device = device;
    t.fenced = true;
    ++t.clock;
}

void share_knowledge(block_state& b) {
    if (!b.knowing) return;
    std::uint32_t all = 0;
    for (const thread_clock& t : b.clocks) all = join(all, t.knowledge);
    all = without_block(all, b.block);
    for (thread_clock& t : b.clocks) t.knowledge = all;
    b.knowing = all != 0;
}

}  // namespace cpu_backend::counting::detail::race
