// Per-kernel settings made with cudaFuncSetAttribute, keyed by the kernel's
// address. Only the dynamic shared memory limit changes behaviour.
#pragma once

#include <cstddef>

namespace cpu_backend::detail {

void set_max_dynamic_shared_bytes(const void* kernel, std::size_t bytes);
// The limit for `kernel`; for a kernel whose address the launch could not
// take (a template with deduced arguments), the largest limit set for any
// kernel.
std::size_t max_dynamic_shared_bytes(const void* kernel);
void forget_function_attributes();

}  // namespace cpu_backend::detail
