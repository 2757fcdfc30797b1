#include "agent/transport_facts.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "common/bounded_file.hpp"
#include "common/mca_params.hpp"
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

// "FILE: pml = VALUE" when the MCA parameter file `file` selects a pml or an mtl (its last
// line for each counts, as in Open MPI). Exclusions ("mtl = ^ofi", "pml = ^ucx", as Debian
// ships) leave ob1 possible and are not reported, unless they exclude ob1 itself. A file that
// cannot be read says nothing, as it says nothing to Open MPI.
void mca_choice(const fs::path& file, std::vector<std::string>& out) {
  const BoundedFile text = read_bounded_file(file.string(), kMaxMcaParamFileBytes);
  if (text.outcome != BoundedFile::Outcome::Read) return;
  McaParams params;
  add_mca_param_file(text.text, params);
  for (const char* key : {"pml", "mtl"}) {
    const std::string* value = mca_param_value(params, key);
    if (value == nullptr) continue;
    const bool excludes = value->starts_with('^');
    if (excludes && value->find("ob1") == std::string::npos) continue;
    out.push_back(mpilaunch::format("{}: {} = {}", file.string(), key, *value));
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
  mca_choice(root / fs::path(kSystemMcaParamFile).relative_path(), out);
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    mca_choice(fs::path(home) / kUserMcaParamFile, out);
  return out;
}

}  // namespace mpilaunch::agent
