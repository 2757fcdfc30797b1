#include "launcher/hosts/host_sources.hpp"

#include "common/text_format.hpp"

#include "launcher/hosts/host_option.hpp"
#include "launcher/hosts/hostfile.hpp"

namespace mpilaunch::launcher {
namespace {

Result<std::vector<HostEntry>> parse_host_values(const std::vector<std::string>& values) {
  HostListBuilder hosts;
  for (const std::string& value : values) {
    auto parsed = parse_host_option(value);
    if (!parsed) return parsed.error();
    for (HostEntry& entry : parsed.value()) {
      const std::string name = entry.name;
      if (!hosts.add(std::move(entry)))
        return Error{.kind = ErrorKind::BadOption,
                     .detail = mpilaunch::format("-H: {} has more than {} slots in all",
                                                 printable(name), kMaxSlotsPerHost)};
    }
  }
  return std::move(hosts).take();
}

// -H with --hostfile: the -H hosts must be in the file; the file gives slots -H leaves out.
Result<std::vector<HostEntry>> pick_from_hostfile(const std::vector<HostEntry>& picked,
                                                  const std::vector<HostEntry>& in_file,
                                                  const std::string& path) {
  std::vector<HostEntry> out;
  for (const HostEntry& want : picked) {
    const HostEntry* found = nullptr;
    for (const HostEntry& have : in_file)
      if (have.name == want.name && (want.user.empty() || want.user == have.user)) found = &have;
    if (found == nullptr)
      return Error{
          .kind = ErrorKind::BadOption,
          .detail = mpilaunch::format("-H: {} is not in the hostfile {}; with both, -H picks "
                                      "hosts out of the hostfile, so add it there",
                                      printable(want.name), path)};
    HostEntry entry = *found;
    if (want.slots_given) {
      entry.slots = want.slots;
      entry.slots_given = true;
    }
    // mpirun 4.1.4: "--hostfile hf -H node2" with a line "node2" (no slots=) is one slot.
    entry.count_cores = false;
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace

Result<HostList> select_hosts(const HostRequest& request, const EnvLookup& env,
                              const FileReader& read) {
  HostList list;
  std::vector<HostEntry> from_file;
  if (!request.hostfile.empty()) {
    auto text = read(request.hostfile);
    if (!text) return text.error();
    auto hosts = parse_hostfile(text.value(), request.hostfile, &list.host_lines);
    if (!hosts) return hosts.error();
    from_file = std::move(hosts).value();
    list.source = "hostfile " + request.hostfile;
  }
  if (!request.host_values.empty()) {
    auto hosts = parse_host_values(request.host_values);
    if (!hosts) return hosts.error();
    const std::string dash_h = mpilaunch::format("-H {}", fmt::join(request.host_values, " -H "));
    if (request.hostfile.empty()) {
      // The seq mapper's order: each -H word is a line ("-H a:2" is one).
      for (const std::string& value : request.host_values)
        for (std::size_t start = 0; start <= value.size();) {
          const std::size_t end = std::min(value.find(',', start), value.size());
          HostEntry entry;
          if (!read_host_item(trim_blanks(value.substr(start, end - start)), entry))
            list.host_lines.push_back(host_text(entry));
          start = end + 1;
        }
      list.hosts = std::move(hosts).value();
      list.source = dash_h;
      return list;
    }
    list.host_lines.clear();  // -H picking out of a host file: no one order
    auto picked = pick_from_hostfile(hosts.value(), from_file, request.hostfile);
    if (!picked) return picked.error();
    list.hosts = std::move(picked).value();
    list.source = mpilaunch::format("{} out of hostfile {}", dash_h, request.hostfile);
    return list;
  }
  if (!request.hostfile.empty()) {
    list.hosts = std::move(from_file);
    return list;
  }
  auto found = hosts_from_environment(env, read);
  if (!found) return found.error();
  if (found.value()) return std::move(*found.value());
  return list;
}

}  // namespace mpilaunch::launcher
