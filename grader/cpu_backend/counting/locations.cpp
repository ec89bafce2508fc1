// Sites to source lines: addr2line over the program itself, once for every site of every record.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "counting.hpp"
#include "recorder.hpp"

namespace cpu_backend::counting {
namespace {

std::string program_path() {
    char path[4096];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    return length > 0 ? std::string(path, static_cast<std::size_t>(length)) : std::string();
}

// The innermost frame that is not the backend's own header (an atomicAdd's caller, not
// atomics.hpp), without addr2line's "(discriminator N)".
std::string pick(const std::vector<std::string>& frames) {
    for (const std::string& frame : frames) {
        if (frame.find("/cpu_backend/include/") == std::string::npos && frame.rfind("??", 0) != 0) return frame;
    }
    return frames.empty() ? "?" : frames.front();
}

}  // namespace

namespace detail {

std::map<std::uintptr_t, std::string> source_lines(const std::set<std::uintptr_t>& pcs) {
    std::map<std::uintptr_t, std::string> where;
    for (std::uintptr_t pc : pcs) where.emplace(pc, std::string(1, '?'));
    const std::string program = program_path();
    if (where.empty() || program.empty()) return where;
    std::string command = "addr2line -a -i -e '";
    command.append(program).append("'");
    for (const auto& [pc, unused] : where) {
        char address[32];
        std::snprintf(address, sizeof address, " 0x%llx", static_cast<unsigned long long>(pc - 1));  // the call
        command += address;
    }
    command += " 2>/dev/null";
    if (FILE* pipe = popen(command.c_str(), "r")) {
        char line[4096];
        std::uintptr_t current = 0;
        std::vector<std::string> frames;
        auto flush = [&] {
            if (current != 0) where[current + 1] = pick(frames);
            frames.clear();
        };
        while (std::fgets(line, sizeof line, pipe)) {
            std::string text(line);
            while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
            if (text.rfind("0x", 0) == 0) {
                flush();
                current = static_cast<std::uintptr_t>(std::strtoull(text.c_str(), nullptr, 16));
                continue;
            }
            const std::size_t discriminator = text.find(" (discriminator");
            if (discriminator != std::string::npos) text.resize(discriminator);
            frames.push_back(text);
        }
        flush();
        pclose(pipe);
    }
    return where;
}

}  // namespace detail

void resolve_locations(std::vector<launch_record>& all, warp_trace* trace) {
    std::set<std::uintptr_t> pcs;
    for (const launch_record& l : all)
        for (const site_counts& s : l.sites) pcs.insert(s.pc);
    if (trace)
        for (const traced_access& a : trace->accesses) pcs.insert(a.pc);
    std::map<std::uintptr_t, std::string> where = detail::source_lines(pcs);
    for (launch_record& l : all)
        for (site_counts& s : l.sites) s.location = where[s.pc];
    if (trace)
        for (traced_access& a : trace->accesses) a.location = where[a.pc];
}

}  // namespace cpu_backend::counting
