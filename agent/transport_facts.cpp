#include "agent/transport_facts.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>

#include "common/text_format.hpp"

namespace mpilaunch::agent {
namespace {

namespace fs = std::filesystem;

// Every entry of `dir` whose name starts with `prefix` (all entries for an empty prefix).
void entries(const fs::path& dir, std::string_view prefix, std::vector<std::string>& out) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with(prefix)) out.push_back(it->path().string());
  }
}

// "FILE: pml = VALUE" when a line of the MCA parameter file `file` selects a pml or an mtl.
// Exclusions ("mtl = ^ofi", "pml = ^ucx", as Debian ships) leave ob1 possible and are not
// reported, unless they exclude ob1 itself.
void mca_choice(const fs::path& file, std::vector<std::string>& out) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const std::string_view text = std::string_view(line).substr(start);
    for (std::string_view key : {"pml", "mtl"}) {
      if (!text.starts_with(key)) continue;
      const std::size_t eq = text.find_first_not_of(" \t", key.size());
      if (eq == std::string_view::npos || text[eq] != '=') continue;
      std::string_view value = text.substr(eq + 1);
      value.remove_prefix(std::min(value.find_first_not_of(" \t"), value.size()));
      while (!value.empty() &&
             (value.back() == ' ' || value.back() == '\t' || value.back() == '\r'))
        value.remove_suffix(1);
      const bool excludes = value.starts_with('^');
      if (excludes && value.find("ob1") == std::string_view::npos) continue;
      out.push_back(mpilaunch::format("{}: {} = {}", file.string(), key, value));
    }
  }
}

}  // namespace

std::vector<std::string> transport_facts() {
  const char* env_root = std::getenv("MPILAUNCH_FABRIC_ROOT");
  const fs::path root = env_root != nullptr && *env_root != '\0' ? env_root : "/";
  std::vector<std::string> out;
  entries(root / "sys/class/infiniband", "", out);
  entries(root / "sys/class/cxi", "", out);
  entries(root / "dev", "hfi1", out);
  entries(root / "dev", "ipath", out);
  mca_choice(root / "etc/openmpi/openmpi-mca-params.conf", out);
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    mca_choice(fs::path(home) / ".openmpi/mca-params.conf", out);
  return out;
}

}  // namespace mpilaunch::agent
