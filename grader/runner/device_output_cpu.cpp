// Device printf on the CPU backend (device_output.hpp): the runner links with -Wl,--wrap for each
// function a kernel's printf may compile to, so each call made from device code is counted with
// the bytes it formats before it is written; host code's own calls pass through uncounted.
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "cpu_backend/control.hpp"
#include "grader/runner/device_output.hpp"

#ifdef GRADER_LINK_WRAP
extern "C" {
int __real_vprintf(const char* format, va_list args);
int __real___vprintf_chk(int flag, const char* format, va_list args);
int __real_puts(const char* text);
int __real_putchar(int c);
}
#endif

namespace grader::runner {
namespace {

std::atomic<std::uint64_t> printed_calls{0}, printed_bytes{0};

#ifdef GRADER_LINK_WRAP
void count_formatted(const char* format, va_list args) {
  if (!cpu_backend::in_kernel()) return;
  va_list copy;
  va_copy(copy, args);
  const int bytes = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  ++printed_calls;
  printed_bytes += bytes > 0 ? static_cast<std::uint64_t>(bytes) : 0;
}

void count_bytes(std::size_t bytes) {
  if (!cpu_backend::in_kernel()) return;
  ++printed_calls;
  printed_bytes += bytes;
}
#endif

}  // namespace

void bound_device_output() {  // counted where it is made: nothing to bound
#ifndef GRADER_LINK_WRAP
  std::fprintf(stderr, "[ runner   ] what kernels print is not counted here: this linker has no --wrap\n");
#endif
}

std::string device_output_problem(std::size_t calls) {
  const std::uint64_t made = printed_calls.exchange(0), bytes = printed_bytes.exchange(0);
  if (made <= kMaxDevicePrintfCalls * calls && bytes <= kMaxDevicePrintfBytes * calls) return "";
  return "its kernels printed " + std::to_string(bytes) + " bytes in " + std::to_string(made) +
         " printf calls (a graded call may print at most " + std::to_string(kMaxDevicePrintfBytes) +
         " bytes in " + std::to_string(kMaxDevicePrintfCalls) + " calls from its kernels): what a "
         "kernel prints reaches the host where no counter sees it, so the work must not travel "
         "that way; print from the host, or debug outside the graded run";
}

}  // namespace grader::runner

#ifdef GRADER_LINK_WRAP
extern "C" {

int __wrap_vprintf(const char* format, va_list args) {
  grader::runner::count_formatted(format, args);
  return __real_vprintf(format, args);
}

int __wrap_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int written = __wrap_vprintf(format, args);
  va_end(args);
  return written;
}

int __wrap___vprintf_chk(int flag, const char* format, va_list args) {
  grader::runner::count_formatted(format, args);
  return __real___vprintf_chk(flag, format, args);
}

int __wrap___printf_chk(int flag, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int written = __wrap___vprintf_chk(flag, format, args);
  va_end(args);
  return written;
}

int __wrap_puts(const char* text) {
  grader::runner::count_bytes(std::strlen(text) + 1);
  return __real_puts(text);
}

int __wrap_putchar(int c) {
  grader::runner::count_bytes(1);
  return __real_putchar(c);
}

}  // extern "C"
#endif  // GRADER_LINK_WRAP
