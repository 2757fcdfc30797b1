#include "launcher/elf_needed.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace mpilaunch::launcher {
namespace {

Error not_readable(const std::string& path, std::string why) {
  return Error{.kind = ErrorKind::BadOption, .detail = fmt::format("{}: {}", path, why)};
}

template <class T>
bool read_at(std::ifstream& in, std::uint64_t offset, T& out) {
  in.seekg(static_cast<std::streamoff>(offset));
  return static_cast<bool>(in.read(reinterpret_cast<char*>(&out), sizeof out));
}

}  // namespace

Result<std::vector<std::string>> elf_needed(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_readable(path, "cannot be read");
  in.seekg(0, std::ios::end);
  const auto file_size = static_cast<std::uint64_t>(in.tellg());
  Elf64_Ehdr eh{};
  if (!read_at(in, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return not_readable(path, "not an ELF program (a script?)");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return not_readable(path, "not a 64-bit little-endian ELF program");
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
      eh.e_shoff + std::uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > file_size)
    return not_readable(path, "no readable section headers");
  std::vector<std::string> needed;
  for (std::uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr dyn{};
    if (!read_at(in, eh.e_shoff + std::uint64_t{i} * sizeof dyn, dyn))
      return not_readable(path, "truncated section header");
    if (dyn.sh_type != SHT_DYNAMIC) continue;
    Elf64_Shdr strtab{};
    if (dyn.sh_link >= eh.e_shnum ||
        !read_at(in, eh.e_shoff + std::uint64_t{dyn.sh_link} * sizeof strtab, strtab) ||
        strtab.sh_offset > file_size || strtab.sh_size > file_size - strtab.sh_offset ||
        dyn.sh_offset > file_size || dyn.sh_size > file_size - dyn.sh_offset)
      return not_readable(path, "malformed dynamic section");
    std::string strings(strtab.sh_size, '\0');
    in.seekg(static_cast<std::streamoff>(strtab.sh_offset));
    if (!in.read(strings.data(), static_cast<std::streamsize>(strings.size())))
      return not_readable(path, "truncated string table");
    for (std::uint64_t at = 0; at + sizeof(Elf64_Dyn) <= dyn.sh_size; at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry{};
      if (!read_at(in, dyn.sh_offset + at, entry)) return not_readable(path, "truncated");
      if (entry.d_tag == DT_NULL) break;
      if (entry.d_tag != DT_NEEDED) continue;
      if (entry.d_un.d_val >= strings.size()) return not_readable(path, "bad DT_NEEDED");
      needed.emplace_back(strings.c_str() + entry.d_un.d_val);
    }
    break;
  }
  return needed;
}

}  // namespace mpilaunch::launcher
