#include "function_attributes.hpp"

#include <algorithm>
#include <map>
#include <mutex>

#include "device_limits.hpp"

namespace cpu_backend::detail {
namespace {

struct attribute_table {
    std::mutex mutex;
    std::map<const void*, std::size_t> max_dynamic_shared;
};

attribute_table& table() {
    static attribute_table instance;
    return instance;
}

}  // namespace

void set_max_dynamic_shared_bytes(const void* kernel, std::size_t bytes) {
    attribute_table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    t.max_dynamic_shared[kernel] = bytes;
}

std::size_t max_dynamic_shared_bytes(const void* kernel) {
    attribute_table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    if (kernel != nullptr) {
        auto found = t.max_dynamic_shared.find(kernel);
        return found != t.max_dynamic_shared.end() ? found->second : limits::shared_memory_per_block;
    }
    std::size_t largest = limits::shared_memory_per_block;
    for (const auto& entry : t.max_dynamic_shared) largest = std::max(largest, entry.second);
    return largest;
}

void forget_function_attributes() {
    attribute_table& t = table();
    std::lock_guard<std::mutex> lock(t.mutex);
    t.max_dynamic_shared.clear();
}

}  // namespace cpu_backend::detail
