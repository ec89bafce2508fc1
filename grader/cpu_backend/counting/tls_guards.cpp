// The program's TLS block, where the __shared__ variables of the block a host thread runs live, and
// where the program keeps the guards of its thread_local variables with dynamic initialisation
// (an extern __shared__ pointer's, under transform_launches.py): reading or setting one is not an
// access to shared memory, though it lies among the __shared__ variables in the TLS block.
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "recorder.hpp"

namespace cpu_backend::counting::detail {
namespace {

std::size_t program_tls_bytes() {
    static const std::size_t bytes = [] {
        std::size_t found = 0;
        dl_iterate_phdr(
            [](dl_phdr_info* info, std::size_t, void* out) {
                for (int i = 0; i < info->dlpi_phnum; ++i) {
                    if (info->dlpi_phdr[i].p_type == PT_TLS) *static_cast<std::size_t*>(out) = info->dlpi_phdr[i].p_memsz;
                }
                return 1;  // the first object is the program itself
            },
            &found);
        return found;
    }();
    return bytes;
}

}  // namespace

std::pair<std::uintptr_t, std::uintptr_t> program_tls_block() {
    void* block = nullptr;
    if (void* self = dlopen(nullptr, RTLD_NOW | RTLD_NOLOAD)) dlinfo(self, RTLD_DI_TLS_DATA, &block);
    const auto first = reinterpret_cast<std::uintptr_t>(block);
    return {first, first ? first + program_tls_bytes() : 0};
}

namespace {

// Every symbol of the program's own symbol table (.symtab) of one ELF type: name, [first, end).
std::vector<tls_symbol> program_symbols(unsigned char type) {
    std::vector<tls_symbol> found;
    const int fd = open("/proc/self/exe", O_RDONLY);
    if (fd < 0) return found;
    struct stat info{};
    void* map = fstat(fd, &info) == 0 ? mmap(nullptr, static_cast<std::size_t>(info.st_size), PROT_READ, MAP_PRIVATE, fd, 0)
                                       : MAP_FAILED;
    close(fd);
    if (map == MAP_FAILED) return found;
    const auto* bytes = static_cast<const unsigned char*>(map);
    const auto* header = static_cast<const Elf64_Ehdr*>(map);
    if (std::memcmp(header->e_ident, ELFMAG, SELFMAG) == 0 && header->e_ident[EI_CLASS] == ELFCLASS64) {
        const auto* sections = reinterpret_cast<const Elf64_Shdr*>(bytes + header->e_shoff);
        for (int i = 0; i < header->e_shnum; ++i) {
            if (sections[i].sh_type != SHT_SYMTAB) continue;
            const auto* symbols = reinterpret_cast<const Elf64_Sym*>(bytes + sections[i].sh_offset);
            const char* names = reinterpret_cast<const char*>(bytes + sections[sections[i].sh_link].sh_offset);
            for (std::size_t s = 0; s < sections[i].sh_size / sizeof(Elf64_Sym); ++s) {
                if (ELF64_ST_TYPE(symbols[s].st_info) != type) continue;
                const std::uintptr_t size = symbols[s].st_size ? symbols[s].st_size : 1;
                found.push_back({names + symbols[s].st_name, symbols[s].st_value, symbols[s].st_value + size});
            }
        }
    }
    munmap(map, static_cast<std::size_t>(info.st_size));
    return found;
}

}  // namespace

std::vector<tls_symbol> tls_symbols() { return program_symbols(STT_TLS); }

std::string function_symbol(const void* address) {
    static const std::vector<tls_symbol> functions = program_symbols(STT_FUNC);
    if (address == nullptr) return "";
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(address) - load_base();
    for (const tls_symbol& f : functions) {
        if (f.first <= offset && offset < f.end) return f.name;
    }
    return "";
}

std::vector<std::pair<std::uintptr_t, std::uintptr_t>> tls_guard_offsets() {
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> guards;
    for (const tls_symbol& s : tls_symbols()) {
        if (s.name.rfind("_ZGV", 0) == 0 || s.name == "__tls_guard") guards.emplace_back(s.first, s.end);
    }
    return guards;
}

}  // namespace cpu_backend::counting::detail
