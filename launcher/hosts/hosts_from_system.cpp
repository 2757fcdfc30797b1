#include "launcher/hosts/hosts_from_system.hpp"

#include <cstdlib>

#include "common/bounded_file.hpp"
#include "common/mca_params.hpp"
#include "common/os_hostname.hpp"
#include "common/text_format.hpp"

#include "launcher/hosts/host_sources.hpp"
#include "launcher/hosts/rankfile.hpp"

namespace mpilaunch::launcher {
namespace {

// 16 MiB: a million hosts of long names.
constexpr std::size_t kMaxHostfileBytes = std::size_t{16} << 20;

}  // namespace

Result<std::string> read_host_file(const std::string& path) {
  // A host file is a list of names: a directory or a device (/dev/zero) is not read whole.
  BoundedFile file = read_bounded_file(path, kMaxHostfileBytes);
  // A host file not read at all (phase "read"): no line of it is to blame.
  auto unreadable = [](std::string detail) {
    return Error{.kind = ErrorKind::HostfileError, .phase = "read", .detail = std::move(detail)};
  };
  switch (file.outcome) {
    case BoundedFile::Outcome::Read:
      return std::move(file.text);
    case BoundedFile::Outcome::Directory:
      return unreadable(file.problem + ", not a host file");
    case BoundedFile::Outcome::TooLarge:
      return unreadable(file.problem + "; a host file lists host names, one per line");
    case BoundedFile::Outcome::Missing:
    case BoundedFile::Outcome::Unreadable:
      return unreadable(file.problem);
  }
  return unreadable(file.problem);
}

Result<HostList> gather_hosts(const Options& o) {
  // Open MPI's default host file may be named in its parameter files too, as mpirun reads them.
  const EnvLookup env = [&o](std::string_view name) -> std::optional<std::string> {
    const char* value = std::getenv(std::string(name).c_str());
    if (value != nullptr) return std::string(value);
    if (name == "OMPI_MCA_orte_default_hostfile")
      if (const std::string* v = mca_param_value(o.param_file_mca, "orte_default_hostfile"))
        return *v;
    return std::nullopt;
  };
  const FileReader read = read_host_file;
  HostRequest request = host_request(o);
  request.this_host = os_hostname();
  auto list = select_hosts(request, env, read);
  if (!list || o.rankfile.empty()) return list;
  auto text = read(o.rankfile);
  if (!text) {
    Error e = text.error();
    e.kind = ErrorKind::BadOption;
    e.phase.clear();  // bad-option's hint already fits
    e.detail = "--rankfile " + e.detail;
    return e;
  }
  auto lines = parse_rankfile(text.value(), o.rankfile);
  if (!lines) return lines.error();
  auto hosts = rankfile_hosts(lines.value(), list->hosts, o.rankfile);
  if (!hosts) return hosts.error();
  if (list->hosts.empty()) list->source = "rankfile " + o.rankfile;
  list->hosts = std::move(hosts).value();
  list->rankfile = std::move(lines).value();
  list->rankfile_path = o.rankfile;
  return list;
}

}  // namespace mpilaunch::launcher
