// The checker's table of shared regions: which address belongs to which region, and which were
// freed since the runner last heard.
#include <unistd.h>

#include <iterator>
#include <map>
#include <mutex>
#include <set>

#include "grader/runner/shared_memory.hpp"

namespace grader::runner {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<char*, SharedRegion> by_base;  // ordered: find the region below an address
  std::vector<std::uint64_t> released;
  std::set<std::uint64_t> handed_out;  // live regions some runner was sent
  std::uint64_t next_id = 1;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: buffers may be freed during exit
  return *r;
}

}  // namespace

void* allocate_shared(std::size_t bytes) {
  const Exported e = export_new_allocation(bytes == 0 ? 1 : bytes);
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.by_base[e.base] = SharedRegion{r.next_id++, e.base, e.bytes, e.fd};
  return e.base;
}

void free_shared(void* base) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto found = r.by_base.find(static_cast<char*>(base));
  if (found == r.by_base.end()) return;
  release_exported({found->second.base, found->second.bytes, found->second.fd});
  r.released.push_back(found->second.id);
  r.handed_out.erase(found->second.id);
  r.by_base.erase(found);
}

namespace {
const SharedRegion* find_locked(Registry& r, const void* p) {
  char* address = const_cast<char*>(static_cast<const char*>(p));
  auto above = r.by_base.upper_bound(address);
  if (above == r.by_base.begin()) return nullptr;
  const SharedRegion& region = std::prev(above)->second;
  return address < region.base + region.bytes ? &region : nullptr;
}
}  // namespace

const SharedRegion* find_shared(const void* p) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return find_locked(r, p);
}

void note_handed_out(std::uint64_t id) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.handed_out.insert(id);
}

bool handed_out(const void* p) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const SharedRegion* region = find_locked(r, p);
  return region != nullptr && r.handed_out.count(region->id) > 0;
}

std::vector<std::uint64_t> take_released_regions() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::vector<std::uint64_t> released;
  released.swap(r.released);
  return released;
}

}  // namespace grader::runner
