#pragma once
/// [io] The shared libraries an ELF program names directly (its DT_NEEDED entries), read from
/// the file's dynamic section without running the loader.

#include <string>
#include <vector>

#include "common/result.hpp"

namespace mpilaunch::launcher {

/// The DT_NEEDED names of the 64-bit little-endian ELF file at `path`, in file order; empty
/// for a static program. Errors (BadOption, detail says why): unreadable, not ELF (a script),
/// another ELF class, or a malformed dynamic section.
Result<std::vector<std::string>> elf_needed(const std::string& path);

}  // namespace mpilaunch::launcher
