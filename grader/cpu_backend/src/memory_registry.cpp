#include "memory_registry.hpp"

#include "cpu_backend/control.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <iterator>

#include "cpu_backend/runtime_types.hpp"
#include "device_limits.hpp"
#include "runtime_state.hpp"

namespace cpu_backend::detail {
namespace {

constexpr std::size_t canary_bytes = 256;  // also keeps the 256-byte alignment

struct device_allocation {
    unsigned char* base;  // start of the front canary
    std::size_t bytes;    // what the program asked for
    std::size_t back_canary_bytes;
    bool is_symbol;       // a registered variable: no canaries, never freed
};

struct registry {
    std::mutex mutex;
    std::map<std::uintptr_t, device_allocation> device;  // keyed by user address
    std::map<std::uintptr_t, std::size_t> pinned_host;  // start -> bytes
    std::size_t bytes_in_use = 0;
};

registry& memory() {
    static registry instance;
    return instance;
}

// A position-dependent pattern: a stray write of any constant value is
// detected.
unsigned char canary_byte(std::size_t position) { return static_cast<unsigned char>(0xc3u ^ (position * 151u)); }

void fill_canary(unsigned char* zone, std::size_t bytes, std::size_t first_position) {
    for (std::size_t i = 0; i < bytes; ++i) zone[i] = canary_byte(first_position + i);
}

// Returns an empty string when intact; otherwise describes the damage and
// repairs the zone.
std::string inspect_and_repair(std::uintptr_t user, device_allocation& allocation) {
    unsigned char* user_start = reinterpret_cast<unsigned char*>(user);
    long first_bad = 0, last_bad = 0;
    bool damaged = false;
    auto scan = [&](unsigned char* zone, std::size_t bytes, std::size_t first_position, long offset_of_zone) {
        for (std::size_t i = 0; i < bytes; ++i) {
            if (zone[i] == canary_byte(first_position + i)) continue;
            const long offset = offset_of_zone + static_cast<long>(i);
            if (!damaged) first_bad = offset;
            last_bad = offset;
            damaged = true;
        }
    };
    scan(allocation.base, canary_bytes, 0, -static_cast<long>(canary_bytes));
    scan(user_start + allocation.bytes, allocation.back_canary_bytes, canary_bytes + allocation.bytes,
         static_cast<long>(allocation.bytes));
    if (!damaged) return {};
    fill_canary(allocation.base, canary_bytes, 0);
    fill_canary(user_start + allocation.bytes, allocation.back_canary_bytes, canary_bytes + allocation.bytes);
    const bool before = first_bad < 0;
    std::string where = before ? "before the start" : "past the end";
    if (!before && first_bad == static_cast<long>(allocation.bytes)) where = "just past the end";
    if (before && last_bad == -1) where = "just before the start";
    return "out-of-bounds write " + where + " of a " + std::to_string(allocation.bytes) +
           "-byte cudaMalloc allocation: bytes at offsets " + std::to_string(first_bad) + ".." +
           std::to_string(last_bad) + " from its start were overwritten";
}

}  // namespace

void* device_allocate(std::size_t bytes) {
    const std::size_t rounded = (bytes + limits::allocation_alignment - 1) / limits::allocation_alignment *
                                limits::allocation_alignment;
    const std::size_t back = rounded - bytes + canary_bytes;
    void* raw = std::aligned_alloc(limits::allocation_alignment, canary_bytes + rounded + canary_bytes);
    if (raw == nullptr) return nullptr;
    auto* base = static_cast<unsigned char*>(raw);
    unsigned char* user = base + canary_bytes;
    fill_canary(base, canary_bytes, 0);
    std::memset(user, uninitialized_byte, bytes);
    fill_canary(user + bytes, back, canary_bytes + bytes);
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.device[reinterpret_cast<std::uintptr_t>(user)] = device_allocation{base, bytes, back, false};
    r.bytes_in_use += bytes;
    return user;
}

bool device_free(void* pointer) {
    registry& r = memory();
    std::string damage;
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        auto found = r.device.find(reinterpret_cast<std::uintptr_t>(pointer));
        if (found == r.device.end() || found->second.is_symbol) return false;
        damage = inspect_and_repair(found->first, found->second);
        std::free(found->second.base);
        r.bytes_in_use -= found->second.bytes;
        r.device.erase(found);
    }
    if (!damage.empty()) report_fault(cudaErrorIllegalAddress, damage + " (detected by cudaFree)");
    return true;
}

void device_free_all() {
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto entry = r.device.begin(); entry != r.device.end();) {
        if (entry->second.is_symbol) {  // variables outlive a reset
            ++entry;
            continue;
        }
        std::free(entry->second.base);
        entry = r.device.erase(entry);
    }
    r.bytes_in_use = 0;
    // Pinned host buffers stay valid: host code often keeps using them, and
    // freeing them here would turn that into silent use-after-free.
}

std::size_t device_bytes_in_use() {
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    return r.bytes_in_use;
}

std::vector<std::pair<std::uintptr_t, std::size_t>> global_memory_ranges() {
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    std::vector<std::pair<std::uintptr_t, std::size_t>> ranges;
    for (const auto& [start, allocation] : r.device) ranges.emplace_back(start, allocation.bytes);
    for (const auto& [start, bytes] : r.pinned_host) ranges.emplace_back(start, bytes);
    std::sort(ranges.begin(), ranges.end());
    return ranges;
}

bool device_range_valid(const void* pointer, std::size_t bytes) {
    const auto start = reinterpret_cast<std::uintptr_t>(pointer);
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto after = r.device.upper_bound(start);
    if (after == r.device.begin()) return false;
    const auto& [user, allocation] = *std::prev(after);
    return start >= user && start - user <= allocation.bytes && bytes <= allocation.bytes - (start - user);
}

bool is_device_pointer(const void* pointer) { return device_range_valid(pointer, 0); }

void register_symbol(const void* address, std::size_t bytes) {
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.device.emplace(reinterpret_cast<std::uintptr_t>(address), device_allocation{nullptr, bytes, 0, true});
}

void unregister_symbol(const void* address) {
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto found = r.device.find(reinterpret_cast<std::uintptr_t>(address));
    if (found != r.device.end() && found->second.is_symbol) r.device.erase(found);
}

bool check_all_canaries(const std::string& when) {
    registry& r = memory();
    std::string damage;
    {
        std::lock_guard<std::mutex> lock(r.mutex);
        for (auto& [user, allocation] : r.device) {
            if (allocation.is_symbol) continue;
            damage = inspect_and_repair(user, allocation);
            if (!damage.empty()) break;
        }
    }
    if (damage.empty()) return true;
    report_fault(cudaErrorIllegalAddress, damage + " (detected " + when + ")");
    return false;
}

void* host_allocate(std::size_t bytes) {
    void* pointer = std::aligned_alloc(limits::allocation_alignment,
                                       (bytes + limits::allocation_alignment - 1) / limits::allocation_alignment *
                                               limits::allocation_alignment +
                                           limits::allocation_alignment);
    if (pointer == nullptr) return nullptr;
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.pinned_host[reinterpret_cast<std::uintptr_t>(pointer)] = bytes;
    return pointer;
}

bool host_free(void* pointer) {
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.pinned_host.erase(reinterpret_cast<std::uintptr_t>(pointer)) == 0) return false;
    std::free(pointer);
    return true;
}

bool pinned_range_valid(const void* pointer, std::size_t bytes) {
    const auto start = reinterpret_cast<std::uintptr_t>(pointer);
    registry& r = memory();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto after = r.pinned_host.upper_bound(start);
    if (after == r.pinned_host.begin()) return false;
    const auto& [host, size] = *std::prev(after);
    return start - host <= size && bytes <= size - (start - host);
}

}  // namespace cpu_backend::detail

namespace cpu_backend {

void register_external_device_memory(void* base, std::size_t bytes) { detail::register_symbol(base, bytes); }
void unregister_external_device_memory(void* base) { detail::unregister_symbol(base); }

}  // namespace cpu_backend
