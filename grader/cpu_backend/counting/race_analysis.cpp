// The races among a list of accesses (race_detector.hpp): a block's shared accesses of one epoch,
// or a launch's global accesses. Sorted by word, then by site; for each pair of sites that
// conflict on a word (overlapping bytes, one writes, not both strong) one witness: two accesses by
// different threads, not lanes of one warp instruction, that nothing orders. One witness per pair
// of sites and launch: a site pair found once is not searched again.
#include <algorithm>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "race_detector.hpp"

namespace cpu_backend::counting::detail::race {
namespace {

constexpr std::uint8_t byte_bits = 0x0f;

struct pair_hash {
    std::size_t operator()(const std::pair<std::uintptr_t, std::uintptr_t>& p) const {
        return std::hash<std::uintptr_t>()(p.first * 0x9e3779b97f4a7c15ull ^ p.second);
    }
};

std::mutex pairs_mutex;
std::unordered_set<std::pair<std::uintptr_t, std::uintptr_t>, pair_hash> pairs_seen;  // (lower pc, higher pc)

bool same_thread(const access_record& a, const access_record& b) { return a.block == b.block && a.thread == b.thread; }

// Lanes of one warp executing one instruction: a store of several lanes to one word is one store
// of the warp, as the hardware executes it (one lane's value lands).
bool same_instruction(const access_record& a, const access_record& b) {
    return a.block == b.block && a.epoch == b.epoch && a.pc == b.pc && a.thread / 32 == b.thread / 32 &&
           a.execution == b.execution;
}

bool conflicting(access_op a, access_op b) { return (writes(a) || writes(b)) && !(strong(a) && strong(b)); }

bool racing(const access_record& a, const access_record& b) {
    if (same_thread(a, b) || same_instruction(a, b)) return false;
    if (a.knowledge == 0 && b.knowledge == 0) return a.block != b.block || a.epoch == b.epoch;
    return !ordered(a, b);
}

// The records [first, end) of one site (pc, operation, bytes) on one word, sorted by block, epoch,
// thread and run order.
struct group {
    std::size_t first = 0, end = 0;
    std::size_t other_block = 0;  // the first record in another block than `first`'s; end if none
    bool knowing = false;         // a record carries knowledge: the exhaustive search
};

bool search_buckets(const std::vector<access_record>& r, const group& g1, const group& g2, std::size_t& ia,
                    std::size_t& ib) {
    // All of g1 and g2 are in one block: only accesses of one epoch can race.
    const bool same = &g1 == &g2;
    std::size_t i = g1.first, j = g2.first;
    while (i < g1.end && j < g2.end) {
        const std::uint32_t epoch = r[i].epoch;
        if (r[j].epoch < epoch) {
            ++j;
            continue;
        }
        if (r[j].epoch > r[i].epoch) {
            ++i;
            continue;
        }
        std::size_t i_end = i, j_end = j;
        while (i_end < g1.end && r[i_end].epoch == epoch) ++i_end;
        while (j_end < g2.end && r[j_end].epoch == epoch) ++j_end;
        const bool one_thread =
            r[i].thread == r[i_end - 1].thread && r[j].thread == r[j_end - 1].thread && r[i].thread == r[j].thread;
        if (!one_thread) {
            for (std::size_t a = i; a < i_end; ++a)
                for (std::size_t b = same ? a + 1 : j; b < j_end; ++b)
                    if (racing(r[a], r[b])) {
                        ia = a, ib = b;
                        return true;
                    }
        }
        i = i_end, j = j_end;
    }
    return false;
}

bool search(const std::vector<access_record>& r, const group& g1, const group& g2, std::size_t& ia, std::size_t& ib) {
    const bool same = &g1 == &g2;
    if (!g1.knowing && !g2.knowing) {
        // Accesses of different blocks race unless something orders them, and nothing does here.
        const std::size_t candidates[3][2] = {
            {g1.first, g2.first}, {g1.first, g2.other_block}, {g1.other_block, g2.first}};
        for (const auto& [a, b] : candidates) {
            if (a >= g1.end || b >= g2.end || (same && a == b)) continue;
            if (r[a].block != r[b].block) {
                ia = a, ib = b;
                return true;
            }
        }
        return search_buckets(r, g1, g2, ia, ib);
    }
    for (std::size_t a = g1.first; a < g1.end; ++a)
        for (std::size_t b = same ? a + 1 : g2.first; b < g2.end; ++b)
            if (racing(r[a], r[b])) {
                ia = a, ib = b;
                return true;
            }
    return false;
}

// The same thread's plain access of the other kind (a load for a store) to the word, in the same
// epoch, nearest in run order: on the same line, the two make a read-modify-write (x++).
std::uintptr_t partner(const std::vector<access_record>& r, std::size_t first, std::size_t end,
                       const access_record& a) {
    if (a.op != access_op::load && a.op != access_op::store) return 0;
    const access_op other = a.op == access_op::load ? access_op::store : access_op::load;
    std::uintptr_t best = 0;
    std::uint64_t distance = ~std::uint64_t{0};
    for (std::size_t i = first; i < end; ++i) {
        const access_record& x = r[i];
        if (x.op != other || !same_thread(x, a) || x.epoch != a.epoch) continue;
        const std::uint64_t d = x.seq > a.seq ? x.seq - a.seq : a.seq - x.seq;
        if (d < distance) distance = d, best = x.pc;
    }
    return best;
}

// Where each site first ran among the records: a witness's two accesses are given in the order of
// their sites' first runs, which is the kernel's order wherever one thread runs both sites (count,
// then merge), whichever threads the schedule happened to run first. Worked out for the sites of
// witnesses only.
class first_runs {
public:
    explicit first_runs(const std::vector<access_record>& all) : all_(all) {}
    std::uint64_t of(std::uintptr_t pc) {
        const auto known = cache_.find(pc);
        if (known != cache_.end()) return known->second;
        std::uint64_t first = ~std::uint64_t{0};
        for (const access_record& r : all_)
            if (r.pc == pc && r.seq < first) first = r.seq;
        return cache_.emplace(pc, first).first->second;
    }

private:
    const std::vector<access_record>& all_;
    std::unordered_map<std::uintptr_t, std::uint64_t> cache_;
};

bool by_word_and_site(const access_record& a, const access_record& b) {
    return std::tie(a.word, a.pc, a.op, a.mask, a.block, a.epoch, a.thread, a.seq) <
           std::tie(b.word, b.pc, b.op, b.mask, b.block, b.epoch, b.thread, b.seq);
}

void analyse_word(const std::vector<access_record>& r, std::size_t first, std::size_t end, first_runs& runs,
                  std::vector<raw_witness>& found) {
    bool any_write = false, any_weak = false, several = false;
    for (std::size_t i = first; i < end; ++i) {
        any_write = any_write || writes(r[i].op);
        any_weak = any_weak || !strong(r[i].op);
        several = several || !same_thread(r[i], r[first]);
    }
    if (!any_write || !any_weak || !several) return;
    std::vector<group> groups;
    for (std::size_t i = first; i < end;) {
        group g;
        g.first = i;
        while (i < end && r[i].pc == r[g.first].pc && r[i].op == r[g.first].op && r[i].mask == r[g.first].mask) {
            g.knowing = g.knowing || r[i].knowledge != 0;
            ++i;
        }
        g.end = g.other_block = i;
        for (std::size_t k = g.first; k < g.end; ++k)
            if (r[k].block != r[g.first].block) {
                g.other_block = k;
                break;
            }
        groups.push_back(g);
    }
    for (std::size_t x = 0; x < groups.size(); ++x) {
        for (std::size_t y = x; y < groups.size(); ++y) {
            const access_record& a = r[groups[x].first];
            const access_record& b = r[groups[y].first];
            if (!conflicting(a.op, b.op) || (a.mask & b.mask & byte_bits) == 0) continue;
            const auto key = std::minmax(a.pc, b.pc);
            {
                std::lock_guard<std::mutex> lock(pairs_mutex);
                if (pairs_seen.count(key)) continue;
            }
            std::size_t ia = 0, ib = 0;
            if (!search(r, groups[x], groups[y], ia, ib)) continue;
            {
                std::lock_guard<std::mutex> lock(pairs_mutex);
                if (!pairs_seen.insert(key).second) continue;
            }
            const std::uint64_t run_a = runs.of(r[ia].pc), run_b = runs.of(r[ib].pc);
            if (run_b < run_a || (run_a == run_b && r[ib].seq < r[ia].seq)) std::swap(ia, ib);
            raw_witness w;
            w.first = r[ia];
            w.second = r[ib];
            w.partner[0] = partner(r, first, end, w.first);
            w.partner[1] = partner(r, first, end, w.second);
            found.push_back(w);
        }
    }
}

}  // namespace

void forget_pairs() {
    std::lock_guard<std::mutex> lock(pairs_mutex);
    pairs_seen.clear();
}

void analyse(std::vector<access_record>& records, std::vector<raw_witness>& found) {
    std::sort(records.begin(), records.end(), by_word_and_site);
    first_runs runs(records);
    for (std::size_t first = 0; first < records.size();) {
        std::size_t end = first + 1;
        while (end < records.size() && records[end].word == records[first].word) ++end;
        if (end - first > 1) analyse_word(records, first, end, runs, found);
        first = end;
    }
}

void analyse_word(std::vector<access_record>& word, const std::vector<access_record>& all,
                  std::vector<raw_witness>& found) {
    if (word.size() < 2) return;
    std::sort(word.begin(), word.end(), by_word_and_site);
    first_runs runs(all);
    analyse_word(word, 0, word.size(), runs, found);
}

}  // namespace cpu_backend::counting::detail::race
