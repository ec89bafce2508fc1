// The per-launch records: blocks' counts summed per site, totals by ncu's metrics, JSON out.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>

#include "recorder.hpp"

namespace cpu_backend::counting {
namespace {

struct registry {
    std::mutex mutex;
    std::vector<launch_record> done;
    launch_record current;
    detail::site_map sites;
    std::string label;
};

registry& launches() {
    static registry instance;
    return instance;
}

void add_to_totals(launch_totals& t, const site_counts& s) {
    if (s.kind == access_kind::shuffle) {  // not a memory access: kept out of the memory counters
        t.shuffle_lanes += s.lanes;
        return;
    }
    t.warp_instructions += s.requests;
    t.active_lanes += s.lanes;
    t.partial_warp_instructions += s.partial_requests;
    switch (s.kind) {
        case access_kind::global_load: t.global_load_requests += s.requests; t.global_load_sectors += s.sectors; break;
        case access_kind::global_store: t.global_store_requests += s.requests; t.global_store_sectors += s.sectors; break;
        case access_kind::shared_load:
            t.shared_load_requests += s.requests;
            t.shared_load_wavefronts += s.wavefronts;
            t.shared_load_bank_conflicts += s.bank_conflicts;
            break;
        case access_kind::shared_store:
            t.shared_store_requests += s.requests;
            t.shared_store_wavefronts += s.wavefronts;
            t.shared_store_bank_conflicts += s.bank_conflicts;
            break;
        case access_kind::global_atomic:
            t.global_atomic_requests += s.requests;
            t.global_atomic_operations += s.lanes;
            t.global_atomic_distinct_addresses += s.distinct_addresses;
            break;
        case access_kind::shared_atomic:
            t.shared_atomic_requests += s.requests;
            t.shared_atomic_operations += s.lanes;
            t.shared_atomic_distinct_addresses += s.distinct_addresses;
            break;
        case access_kind::shuffle: break;
    }
}

std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
            continue;
        }
        out += c;
    }
    return out + "\"";
}

std::string dims(dim3 d) {
    return "[" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + "]";
}

void write_at_exit() {
    const char* path = std::getenv("CUDA_CPU_BACKEND_COUNTS");
    if (path == nullptr || *path == '\0') return;
    std::vector<launch_record> all = records();
    std::optional<warp_trace> trace = traced_warp();
    resolve_locations(all, trace ? &*trace : nullptr);
    if (FILE* out = std::fopen(path, "w")) {
        std::string text = to_json(all, trace ? &*trace : nullptr);
        if (race_detection()) {  // the witnesses under "races", beside "launches"
            const std::string list = races_json(races(), races_unchecked());
            const std::size_t open = list.find('['), unchecked = list.rfind("\"unchecked\"");
            text.resize(text.rfind('}'));
            text += ",\n\"races\": " + list.substr(open, list.rfind(']', unchecked) - open + 1) +
                    ",\n\"races_unchecked\": " + list.substr(list.find('[', unchecked), std::string::npos);
        }
        std::fwrite(text.data(), 1, text.size(), out);
        std::fclose(out);
    } else {
        std::fprintf(stderr, "counting mode: cannot write %s\n", path);
    }
}

// The registry is made first, so that it is destroyed after write_at_exit ran.
const bool at_exit_registered = [] {
    launches();
    return std::atexit(&write_at_exit) == 0;
}();

}  // namespace

namespace detail {

std::uintptr_t load_base() {
    static const std::uintptr_t base = [] {
        Dl_info info{};
        dladdr(reinterpret_cast<void*>(&load_base), &info);
        return reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    }();
    return base;
}

void begin_launch(const std::string& kernel, const std::string& symbol, const std::string& file, int line,
                  dim3 grid, dim3 block, std::size_t dynamic_shared_bytes) {
    registry& r = launches();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.current = launch_record{};
    r.current.kernel = kernel;
    r.current.symbol = symbol;
    r.current.file = file;
    r.current.line = line;
    r.current.label = r.label;
    r.current.grid = grid;
    r.current.block = block;
    r.current.dynamic_shared_bytes = dynamic_shared_bytes;
    r.sites.clear();
    trace_launch_begins(kernel, r.label, grid);
}

void add_block(const site_map& sites, std::uint64_t barriers) {
    registry& r = launches();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.current.blocks += 1;
    r.current.barriers += barriers;
    if (barriers > r.current.max_barriers_per_block) r.current.max_barriers_per_block = barriers;
    for (const auto& [key, counts] : sites) {
        site_counts& into = r.sites[key];
        into.kind = counts.kind;
        into.bytes = counts.bytes;
        into.requests += counts.requests;
        into.lanes += counts.lanes;
        into.partial_requests += counts.partial_requests;
        into.sectors += counts.sectors;
        into.wavefronts += counts.wavefronts;
        into.bank_conflicts += counts.bank_conflicts;
        into.distinct_addresses += counts.distinct_addresses;
    }
}

void end_launch(bool faulted) {
    registry& r = launches();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.current.faulted = faulted;
    for (auto& [key, counts] : r.sites) {
        counts.pc = std::get<0>(key) - load_base();
        add_to_totals(r.current.totals, counts);
        r.current.sites.push_back(counts);
    }
    r.done.push_back(std::move(r.current));
    r.sites.clear();
    trace_launch_ends();
}

std::string launch_label() {
    registry& r = launches();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.label;
}

}  // namespace detail

std::vector<launch_record> records() {
    registry& r = launches();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.done;
}

void clear_records() {
    registry& r = launches();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.done.clear();
    detail::race::clear_witnesses();
}

void set_label(const std::string& label) {
    registry& r = launches();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.label = label;
}

const char* kind_name(access_kind kind) {
    static const char* const names[] = {"global_load", "global_store", "global_atomic",
                                        "shared_load", "shared_store", "shared_atomic", "shuffle"};
    return names[static_cast<int>(kind)];
}

namespace {

// ,"trace": {...}: each access's lanes, null where a lane took no part.
void trace_json(std::ostream& out, const warp_trace& trace) {
    out << ",\n\"trace\": {\"label\": " << quoted(trace.label) << ", \"kernel\": " << quoted(trace.kernel)
        << ", \"block\": " << trace.block << ", \"warp\": " << trace.warp << ", \"accesses\": [";
    for (std::size_t i = 0; i < trace.accesses.size(); ++i) {
        const traced_access& a = trace.accesses[i];
        char pc[32];
        std::snprintf(pc, sizeof pc, "0x%llx", static_cast<unsigned long long>(a.pc));
        out << (i ? "," : "") << "\n {\"kind\": " << quoted(kind_name(a.kind)) << ", \"bytes\": " << a.bytes
            << ", \"region\": " << quoted(a.region) << (a.region[0] == 's' ? ", \"variable\": " + quoted(a.variable) : "")
            << ", \"location\": " << quoted(a.location.empty() ? "?" : a.location)
            << ", \"pc\": " << quoted(pc) << ",\n  \"lanes\": [";
        for (std::uint32_t lane = 0; lane < 32; ++lane) {
            out << (lane ? ", " : "");
            if (a.mask >> lane & 1u) {
                out << static_cast<unsigned long long>(a.address[lane]);
            } else {
                out << "null";
            }
        }
        out << "]}";
    }
    out << "]}";
}

}  // namespace

std::string to_json(const std::vector<launch_record>& all, const warp_trace* trace) {
    std::ostringstream out;
    out << "{\"schema\": \"cpu-backend-counts/v2\", \"launches\": [";
    for (std::size_t i = 0; i < all.size(); ++i) {
        const launch_record& l = all[i];
        const launch_totals& t = l.totals;
        out << (i ? "," : "") << "\n {\"kernel\": " << quoted(l.kernel) << ", \"symbol\": " << quoted(l.symbol)
            << ", \"label\": " << quoted(l.label)
            << ", \"launched_at\": " << quoted(l.file + ":" + std::to_string(l.line)) << ", \"grid\": " << dims(l.grid)
            << ", \"block\": " << dims(l.block) << ", \"dynamic_shared_bytes\": " << l.dynamic_shared_bytes
            << ", \"blocks\": " << l.blocks << ", \"faulted\": " << (l.faulted ? "true" : "false")
            << ",\n  \"barriers\": " << l.barriers << ", \"max_barriers_per_block\": " << l.max_barriers_per_block
            << ",\n  \"metrics\": {";
        const char* separator = "";
#define COUNTING_JSON(name) out << separator << "\"" #name "\": " << t.name, separator = ", ";
        COUNTING_COUNTERS(COUNTING_JSON)
#undef COUNTING_JSON
        out << "},\n  \"sites\": [";
        for (std::size_t j = 0; j < l.sites.size(); ++j) {
            const site_counts& s = l.sites[j];
            char pc[32];
            std::snprintf(pc, sizeof pc, "0x%llx", static_cast<unsigned long long>(s.pc));
            out << (j ? "," : "") << "\n   {\"location\": " << quoted(s.location.empty() ? "?" : s.location)
                << ", \"pc\": " << quoted(pc) << ", \"kind\": " << quoted(kind_name(s.kind)) << ", \"bytes\": " << s.bytes
                << ", \"requests\": " << s.requests << ", \"lanes\": " << s.lanes
                << ", \"partial_requests\": " << s.partial_requests << ", \"sectors\": " << s.sectors
                << ", \"wavefronts\": " << s.wavefronts << ", \"bank_conflicts\": " << s.bank_conflicts
                << ", \"distinct_addresses\": " << s.distinct_addresses << "}";
        }
        out << "]}";
    }
    out << "\n]";
    if (trace) trace_json(out, *trace);
    out << "}\n";
    return out.str();
}

}  // namespace cpu_backend::counting
