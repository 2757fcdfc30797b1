#include "launcher/job/elf_needed.hpp"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/text_format.hpp"

namespace mpilaunch::launcher {
namespace {

Error not_readable(const std::string& path, std::string why) {
  return Error{.kind = ErrorKind::BadOption, .detail = mpilaunch::format("{}: {}", path, why)};
}

// Reads exactly `size` bytes at `offset`; false on a short file or an error.
bool read_at(int fd, std::uint64_t offset, void* into, std::size_t size) {
  auto* p = static_cast<char*>(into);
  while (size > 0) {
    const ssize_t n = ::pread(fd, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    offset += static_cast<std::uint64_t>(n);
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<std::vector<std::string>> elf_needed(const std::string& path) {
  // Four reads: the ELF header, the section headers, the dynamic section, its strings.
  const Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return not_readable(path, std::strerror(errno));
  const off_t end = ::lseek(file.fd, 0, SEEK_END);
  const auto file_size = static_cast<std::uint64_t>(end < 0 ? 0 : end);
  Elf64_Ehdr eh{};
  if (!read_at(file.fd, 0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    return not_readable(path, "not an ELF program (a script?)");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return not_readable(path, "not a 64-bit little-endian ELF program");
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
      eh.e_shoff + std::uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr) > file_size)
    return not_readable(path, "no readable section headers");
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  if (!read_at(file.fd, eh.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr)))
    return not_readable(path, "truncated section headers");
  std::vector<std::string> needed;
  for (const Elf64_Shdr& dyn : sections) {
    if (dyn.sh_type != SHT_DYNAMIC) continue;
    if (dyn.sh_link >= sections.size()) return not_readable(path, "malformed dynamic section");
    const Elf64_Shdr& strtab = sections[dyn.sh_link];
    if (strtab.sh_offset > file_size || strtab.sh_size > file_size - strtab.sh_offset ||
        dyn.sh_offset > file_size || dyn.sh_size > file_size - dyn.sh_offset)
      return not_readable(path, "malformed dynamic section");
    std::string strings(strtab.sh_size, '\0');
    std::vector<Elf64_Dyn> entries(dyn.sh_size / sizeof(Elf64_Dyn));
    if (!read_at(file.fd, strtab.sh_offset, strings.data(), strings.size()) ||
        !read_at(file.fd, dyn.sh_offset, entries.data(), entries.size() * sizeof(Elf64_Dyn)))
      return not_readable(path, "truncated dynamic section");
    for (const Elf64_Dyn& entry : entries) {
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
