// The race detector's witnesses (races.hpp): the pairs race_analysis.cpp found, with their source
// lines and text, threads, barrier intervals and the array they touched; one per launch label,
// kernel, memory and pair of lines; as a sentence and as JSON.
#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <tuple>

#include "recorder.hpp"

namespace cpu_backend::counting {
namespace {

struct found_in_launch {
    detail::race::raw_witness raw;
    std::string label, kernel, launched_at;
    dim3 grid, block;
};

std::mutex witnesses_mutex;
std::vector<found_in_launch>& pending() {
    static auto* list = new std::vector<found_in_launch>;  // never destroyed: read at exit
    return *list;
}
std::vector<std::string>& unchecked() {
    static auto* list = new std::vector<std::string>;
    return *list;
}

// The line's text, trimmed ("" when the file cannot be read).
std::string source_text(const std::string& location) {
    static std::map<std::string, std::vector<std::string>> files;
    const std::size_t colon = location.rfind(':');
    if (colon == std::string::npos) return "";
    const std::string file = location.substr(0, colon);
    const long line = std::strtol(location.c_str() + colon + 1, nullptr, 10);
    auto cached = files.find(file);
    if (cached == files.end()) {
        std::vector<std::string> lines;
        std::ifstream in(file);
        for (std::string text; std::getline(in, text);) lines.push_back(text);
        cached = files.emplace(file, std::move(lines)).first;
    }
    if (line < 1 || static_cast<std::size_t>(line) > cached->second.size()) return "";
    const std::string& text = cached->second[static_cast<std::size_t>(line - 1)];
    const std::size_t first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t\r");
    return first == std::string::npos ? "" : text.substr(first, last - first + 1);
}

// "ns::kernel(int*)::s_bins" -> "s_bins": the last name outside parentheses and angle brackets.
std::string short_name(const std::string& name) {
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        if (c == '(' || c == '<') ++depth;
        if (c == ')' || c == '>') --depth;
        if (depth == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':') start = i + 2;
    }
    return name.substr(start);
}

std::string demangled(const std::string& name) {
    int status = 0;
    char* readable = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    std::string out = status == 0 && readable ? readable : name;
    std::free(readable);
    return out;
}

// The program's TLS symbol holding `offset` (from the TLS block's start), guards left out.
const detail::tls_symbol* tls_symbol_at(std::uintptr_t offset) {
    static const std::vector<detail::tls_symbol> symbols = detail::tls_symbols();
    for (const detail::tls_symbol& s : symbols)
        if (offset >= s.first && offset < s.end && s.name.rfind("_ZGV", 0) != 0) return &s;
    return nullptr;
}

dim3 coordinates(std::uint64_t linear, dim3 shape) {
    return dim3(static_cast<unsigned>(linear % shape.x), static_cast<unsigned>(linear / shape.x % shape.y),
                static_cast<unsigned>(linear / shape.x / shape.y));
}

const char* operation_name(detail::access_op op) {
    switch (op) {
        case detail::access_op::load:
            return "read";
        case detail::access_op::store:
            return "write";
        case detail::access_op::atomic:
            return "atomic";
        case detail::access_op::atomic_read:
            return "atomic (a compare-and-swap that did not swap)";
        case detail::access_op::volatile_load:
            return "volatile read";
        case detail::access_op::volatile_store:
            return "volatile write";
    }
    return "access";
}

// The kind, in the order of the two sites' first runs (race_analysis.cpp).
race_kind kind_of(const detail::race::raw_witness& w) {
    if (w.second.pc == 0) return race_kind::uninitialised_read;
    const bool first = detail::race::writes(w.first.op), second = detail::race::writes(w.second.op);
    return first && second ? race_kind::write_after_write
           : first         ? race_kind::read_after_write
                           : race_kind::write_after_read;
}

int priority(race_kind kind) {
    return kind == race_kind::write_after_write ? 0 : kind == race_kind::read_after_write ? 1 : 2;
}

race_access side_of(const detail::race::access_record& r, std::uintptr_t partner, std::uintptr_t before,
                    std::uintptr_t after, const found_in_launch& f, std::map<std::uintptr_t, std::string>& lines) {
    const std::uintptr_t base = detail::load_base();
    race_access a;
    a.pc = r.pc - base;
    a.location = lines[a.pc];
    a.source = source_text(a.location);
    a.operation = operation_name(r.op);
    a.read_modify_write = partner != 0 && lines[partner - base] == a.location;
    a.block_linear = r.block;
    a.block = coordinates(r.block, f.grid);
    a.thread_linear = r.thread;
    a.thread = coordinates(r.thread, f.block);
    a.warp = r.thread / 32;
    a.lane = r.thread % 32;
    a.barrier_before = before ? lines[before - base] : "";
    a.barrier_after = after ? lines[after - base] : "";
    a.barriers_before = r.epoch;
    return a;
}

// The names indexed with [ on a line of source, outside any other index (d_bins in
// d_bins[d_samples[i]]): the arrays an access there can touch.
std::set<std::string> indexed_names(const std::string& text) {
    std::set<std::string> names;
    int depth = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == ']') depth = depth > 0 ? depth - 1 : 0;
        if (text[i] != '[') continue;
        std::size_t end = i;
        while (end > 0 && text[end - 1] == ' ') --end;
        std::size_t start = end;
        while (start > 0 && (std::isalnum(static_cast<unsigned char>(text[start - 1])) || text[start - 1] == '_'))
            --start;
        if (depth++ == 0 && start < end && !std::isdigit(static_cast<unsigned char>(text[start])))
            names.insert(text.substr(start, end - start));
    }
    return names;
}

race_witness witness_of(const found_in_launch& f, std::map<std::uintptr_t, std::string>& lines) {
    const detail::race::raw_witness& raw = f.raw;
    race_witness w;
    w.kind = kind_of(raw);
    w.kinds = {w.kind};
    w.label = f.label;
    w.kernel = f.kernel;
    w.launched_at = f.launched_at;
    w.region = raw.region;
    w.memory = raw.region == "global" ? "global" : "shared";
    w.offset = raw.offset;
    w.allocation_bytes = raw.allocation_bytes;
    if (raw.region == "static") {
        if (const detail::tls_symbol* s = tls_symbol_at(raw.offset)) {
            w.variable = demangled(s->name);
            w.offset = raw.offset - s->first;
            w.allocation_bytes = s->end - s->first;
        }
    } else if (raw.region == "dynamic" && raw.array_tls != 0) {
        if (const detail::tls_symbol* s = tls_symbol_at(raw.array_tls - 1)) w.variable = demangled(s->name);
    }
    w.array = w.variable.empty() ? "" : short_name(w.variable);
    w.element_bytes = raw.first.bytes ? raw.first.bytes : 1;
    w.index = w.offset / w.element_bytes;
    w.first = side_of(raw.first, raw.partner[0], raw.before[0], raw.after[0], f, lines);
    if (raw.second.pc != 0) w.second = side_of(raw.second, raw.partner[1], raw.before[1], raw.after[1], f, lines);
    if (w.array.empty()) {  // global memory: the one array both lines index, as the student wrote it
        std::set<std::string> names = indexed_names(w.first.source);
        if (raw.second.pc != 0) {
            const std::set<std::string> other = indexed_names(w.second.source);
            std::set<std::string> both;
            std::set_intersection(names.begin(), names.end(), other.begin(), other.end(),
                                  std::inserter(both, both.end()));
            names.swap(both);
        }
        if (names.size() == 1) w.array = *names.begin();
    }
    return w;
}

std::string where(const std::string& location) {
    const std::size_t slash = location.rfind('/');
    return slash == std::string::npos ? location : location.substr(slash + 1);
}

std::string who(const race_access& a) {
    auto shape = [](dim3 d) {
        return d.y == 0 && d.z == 0
                   ? std::to_string(d.x)
                   : "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
    };
    return "thread " + shape(a.thread) + " of block " + shape(a.block);
}

std::string what(const race_access& a) {
    std::string text = where(a.location);
    if (!a.source.empty()) text += " `" + a.source + "`";
    if (a.read_modify_write) return text + ", a plain read-modify-write";
    const std::string& op = a.operation;
    return text + (op == "read" || op == "write" ? ", a plain " + op : op[0] == 'a' ? ", an " + op : ", a " + op);
}

std::string interval(const race_access& a) {
    return "between " +
           (a.barrier_before.empty() ? std::string("the kernel's start")
                                     : "the barrier at " + where(a.barrier_before)) +
           " and " +
           (a.barrier_after.empty() ? std::string("the kernel's end") : "the barrier at " + where(a.barrier_after));
}

std::string quoted_text(const std::string& text) {
    std::string q = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') q += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            q += escaped;
            continue;
        }
        q += c;
    }
    return q + "\"";
}

void json_access(std::ostream& out, const race_access& a) {
    auto dims = [](dim3 d) {
        return "[" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + "]";
    };
    char pc[32];
    std::snprintf(pc, sizeof pc, "0x%llx", static_cast<unsigned long long>(a.pc));
    out << "{\"location\": " << quoted_text(a.location) << ", \"source\": " << quoted_text(a.source) << ", \"pc\": \""
        << pc << "\", \"operation\": " << quoted_text(a.operation)
        << ", \"read_modify_write\": " << (a.read_modify_write ? "true" : "false") << ", \"block\": " << dims(a.block)
        << ", \"block_linear\": " << a.block_linear << ", \"thread\": " << dims(a.thread)
        << ", \"thread_linear\": " << a.thread_linear << ", \"warp\": " << a.warp << ", \"lane\": " << a.lane
        << ", \"barrier_before\": " << quoted_text(a.barrier_before)
        << ", \"barrier_after\": " << quoted_text(a.barrier_after) << ", \"barriers_before\": " << a.barriers_before
        << "}";
}

}  // namespace

namespace detail::race {

void add_witnesses(std::vector<raw_witness>&& found, const std::string& label, const std::string& kernel,
                   const std::string& launched_at, dim3 grid, dim3 block) {
    std::lock_guard<std::mutex> lock(witnesses_mutex);
    for (raw_witness& w : found) pending().push_back({std::move(w), label, kernel, launched_at, grid, block});
}

void clear_witnesses() {
    std::lock_guard<std::mutex> lock(witnesses_mutex);
    pending().clear();
    unchecked().clear();
}

void add_unchecked(const std::string& label, const std::string& kernel, const std::string& launched_at) {
    std::lock_guard<std::mutex> lock(witnesses_mutex);
    unchecked().push_back("kernel " + kernel + " launched at " + launched_at +
                          (label.empty() ? "" : " (" + label + ")") +
                          ": its global memory was not checked for races, it made more global accesses than "
                          "the detector keeps (its shared memory was)");
}

}  // namespace detail::race

const char* race_kind_name(race_kind kind) {
    static const char* const names[] = {"read after write", "write after read", "write after write",
                                        "uninitialised read"};
    return names[static_cast<int>(kind)];
}

std::vector<race_witness> races() {
    std::vector<found_in_launch> found;
    {
        std::lock_guard<std::mutex> lock(witnesses_mutex);
        found = pending();
    }
    const std::uintptr_t base = detail::load_base();
    std::set<std::uintptr_t> pcs;
    for (const found_in_launch& f : found)
        for (std::uintptr_t pc : {f.raw.first.pc, f.raw.second.pc, f.raw.partner[0], f.raw.partner[1], f.raw.before[0],
                                  f.raw.before[1], f.raw.after[0], f.raw.after[1]})
            if (pc != 0) pcs.insert(pc - base);
    std::map<std::uintptr_t, std::string> lines = detail::source_lines(pcs);
    std::vector<race_witness> out;
    std::map<std::tuple<std::string, std::string, std::string, std::string, std::string, bool>, std::size_t> index;
    for (const found_in_launch& f : found) {
        race_witness w = witness_of(f, lines);
        const bool uninitialised = w.kind == race_kind::uninitialised_read;
        const auto [low, high] = std::minmax(w.first.location, uninitialised ? w.first.location : w.second.location);
        const auto key = std::make_tuple(w.label, w.kernel, w.memory, low, high, uninitialised);
        const auto known = index.find(key);
        if (known == index.end()) {
            index.emplace(key, out.size());
            out.push_back(std::move(w));
            continue;
        }
        race_witness& kept = out[known->second];
        if (std::find(kept.kinds.begin(), kept.kinds.end(), w.kind) == kept.kinds.end()) kept.kinds.push_back(w.kind);
        if (priority(w.kind) < priority(kept.kind)) {
            w.kinds = kept.kinds;
            kept = std::move(w);
        }
        std::stable_sort(kept.kinds.begin(), kept.kinds.end(),
                         [](race_kind a, race_kind b) { return priority(a) < priority(b); });
    }
    return out;
}

std::string describe(const race_witness& w) {
    std::string target = w.array.empty() ? (w.memory == "global" ? "global memory" : "dynamic shared memory") : w.array;
    const std::string place =
        w.array.empty() ? target + " at byte " + std::to_string(w.offset) +
                              (w.allocation_bytes ? " of " + std::to_string(w.allocation_bytes) + " bytes" : "")
                        : target + "[" + std::to_string(w.index) + "]";
    if (w.kind == race_kind::uninitialised_read)
        return "read of uninitialised " + std::string(w.memory) + " memory: " + place + " — " + who(w.first) + " (" +
               what(w.first) + ") reads bytes no thread of its block wrote since the block started, " +
               interval(w.first);
    std::string text =
        "race on " + place + " (" + w.memory + " memory, " + race_kind_name(w.kind) + ") — " + who(w.first) + " (" +
        what(w.first) + ") and " + who(w.second) + " (" +
        (w.second.location == w.first.location && w.second.operation == w.first.operation ? std::string("the same line")
                                                                                          : what(w.second)) +
        "), ";
    if (w.first.block_linear != w.second.block_linear)
        return text + "in different blocks: nothing orders them before the launch ends";
    if (w.first.barriers_before == w.second.barriers_before) return text + "both " + interval(w.first);
    return text + interval(w.first) + " and " + interval(w.second);
}

std::vector<std::string> races_unchecked() {
    std::lock_guard<std::mutex> lock(witnesses_mutex);
    return unchecked();
}

std::string races_json(const std::vector<race_witness>& witnesses, const std::vector<std::string>& not_checked) {
    std::ostringstream out;
    out << "{\"schema\": \"cpu-backend-races/v1\", \"races\": [";
    for (std::size_t i = 0; i < witnesses.size(); ++i) {
        const race_witness& w = witnesses[i];
        out << (i ? "," : "") << "\n {\"kind\": \"" << race_kind_name(w.kind) << "\", \"kinds\": [";
        for (std::size_t k = 0; k < w.kinds.size(); ++k)
            out << (k ? ", " : "") << "\"" << race_kind_name(w.kinds[k]) << "\"";
        out << "], \"label\": " << quoted_text(w.label) << ", \"kernel\": " << quoted_text(w.kernel)
            << ", \"launched_at\": " << quoted_text(w.launched_at) << ", \"memory\": \"" << w.memory
            << "\", \"region\": \"" << w.region << "\", \"array\": " << quoted_text(w.array)
            << ", \"variable\": " << quoted_text(w.variable) << ", \"offset\": " << w.offset
            << ", \"element_bytes\": " << w.element_bytes << ", \"index\": " << w.index
            << ", \"allocation_bytes\": " << w.allocation_bytes << ",\n  \"first\": ";
        json_access(out, w.first);
        out << ",\n  \"second\": ";
        if (w.kind == race_kind::uninitialised_read) {
            out << "null";
        } else {
            json_access(out, w.second);
        }
        out << ",\n  \"message\": " << quoted_text(describe(w)) << "}";
    }
    out << "\n], \"unchecked\": [";
    for (std::size_t i = 0; i < not_checked.size(); ++i) out << (i ? ", " : "") << quoted_text(not_checked[i]);
    out << "]}\n";
    return out.str();
}

}  // namespace cpu_backend::counting
