// How a call's arguments travel, for both sides. Values (int, float, the labs' launch-shape
// structs) go as bytes; every pointer is a device pointer into one of the checker's shared
// regions and goes as (index in the call's region table, offset), so the runner rebuilds it in its
// own address space. A null pointer stays null.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "grader/runner/wire.hpp"

namespace grader::runner {

constexpr std::uint32_t kNullRegion = 0xffffffffu;

template <class T>
constexpr bool travels_as_pointer = std::is_pointer_v<T>;

// A struct argument that carries device pointers (lab05::WarpActivity, lab06::Workspace) names
// them here, so each is rebuilt in the runner like a pointer argument; for a lab's structs the
// generated labNN_calls.cu does (grader/core/lab_calls.py reads the pointer members of the header):
//   template <> struct grader::runner::PointerMembers<lab06::Workspace> {
//     static constexpr auto list = std::make_tuple(&lab06::Workspace::d_bins, ...);
//   };
template <class T>
struct PointerMembers {
  static constexpr std::tuple<> list{};
};

template <class T>
constexpr bool travels_as_value = !std::is_pointer_v<T> && std::is_trivially_copyable_v<T>;

// Runner side: the call's regions as mapped here.
struct MappedRegion {
  char* base;
  std::size_t bytes;
};

template <class T>
T decode_pointer(Reader& in, const std::vector<MappedRegion>& regions) {
  const auto index = in.get<std::uint32_t>();
  const auto offset = in.get<std::uint64_t>();
  if (index == kNullRegion) return nullptr;
  if (index >= regions.size() || offset > regions[index].bytes) {
    throw ProtocolError("pointer argument outside the shared buffers");
  }
  return reinterpret_cast<T>(regions[index].base + offset);
}

template <class T>
T decode_argument(Reader& in, const std::vector<MappedRegion>& regions) {
  if constexpr (travels_as_pointer<T>) {
    return decode_pointer<T>(in, regions);
  } else {
    static_assert(travels_as_value<T>, "an argument type that cannot travel between processes");
    T value = in.get<T>();
    if constexpr (std::is_class_v<T>) {
      std::apply([&](auto... member) {
        ((value.*member = decode_pointer<std::remove_reference_t<decltype(value.*member)>>(in, regions)), ...);
      }, PointerMembers<T>::list);
    }
    return value;
  }
}

}  // namespace grader::runner
