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

// The parameters Open MPI's parameter file `file` sets; none when it cannot be read (it says
// nothing to Open MPI then either).
McaParams file_params(const fs::path& file) {
  McaParams params;
  const BoundedFile text = read_bounded_file(file.string(), kMaxMcaParamFileBytes);
  if (text.outcome == BoundedFile::Outcome::Read) add_mca_param_file(text.text, params);
  return params;
}

// "FILE: pml = VALUE" when the parameter files select a pml or an mtl: for each, the user's
// file's last line when it has one (it overrides the system's, as in Open MPI), else the system
// file's. Exclusions ("mtl = ^ofi", "pml = ^ucx", as Debian ships) leave ob1 possible and are
// not reported, unless they exclude ob1 itself: a system "pml = ucx" that the user's "pml = ^ucx"
// overrides is no choice.
void mca_choices(const std::vector<fs::path>& files, std::vector<std::string>& out) {
  std::vector<McaParams> params;
  for (const fs::path& file : files) params.push_back(file_params(file));
  for (const char* key : {"pml", "mtl"})
    for (std::size_t i = files.size(); i-- > 0;) {
      const std::string* value = mca_param_value(params[i], key);
      if (value == nullptr) continue;
      const bool excludes = value->starts_with('^');
      if (!excludes || value->find("ob1") != std::string::npos)
        out.push_back(mpilaunch::format("{}: {} = {}", files[i].string(), key, *value));
      break;
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
  std::vector<fs::path> files = {root / fs::path(kSystemMcaParamFile).relative_path()};
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    files.push_back(fs::path(home) / kUserMcaParamFile);
  mca_choices(files, out);
  return out;
}

}  // namespace mpilaunch::agent
