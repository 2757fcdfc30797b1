#include "launcher/hosts/host_sources.hpp"

#include <algorithm>
#include <map>

#include "common/text_format.hpp"
#include "common/text_split.hpp"

#include "launcher/hosts/host_option.hpp"
#include "launcher/hosts/hostfile.hpp"

namespace mpilaunch::launcher {
namespace {

// The hosts of -H values in order of first mention, each mention without :N one slot more;
// `contexts` (HostRequest::host_value_contexts), when given, has a host named by several
// contexts take the slots of the last of them only.
Result<std::vector<HostEntry>> parse_host_values(const std::vector<std::string>& values,
                                                 const std::vector<std::size_t>& contexts) {
  HostListBuilder hosts;
  std::map<std::size_t, HostListBuilder> of_context;
  for (std::size_t v = 0; v < values.size(); ++v) {
    auto parsed = parse_host_option(values[v]);
    if (!parsed) return parsed.error();
    for (HostEntry& entry : parsed.value()) {
      const std::string name = entry.name;
      const bool fits = v >= contexts.size() || of_context[contexts[v]].add(entry);
      if (!fits || !hosts.add(std::move(entry)))
        return Error{.kind = ErrorKind::BadOption,
                     .detail = mpilaunch::format("-H: {} has more than {} slots in all",
                                                 printable(name), kMaxSlotsPerHost)};
    }
  }
  std::vector<HostEntry> list = std::move(hosts).take();
  for (HostEntry& host : list)
    for (auto it = of_context.rbegin(); it != of_context.rend(); ++it)
      if (const auto at = it->second.index_of(host)) {
        host.slots = it->second.hosts()[*at].slots;
        host.slots_given = it->second.hosts()[*at].slots_given;
        break;
      }
  return list;
}

// -H with --hostfile: the -H hosts must be in the file, with -H's slots.
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
    // mpirun 4.1.4 (measured): -H's slots count, whatever the file's slots= says: one per
    // mention without :N ("--hostfile hf -H node2" with "node2 slots=4" is one slot; "-H
    // node2,node2" two), N with :N. A line without slots= is not the node's cores either.
    entry.slots = want.slots;
    entry.slots_given = want.slots_given;
    entry.max_slots = want.max_slots;  // the file's max_slots= goes too (measured)
    entry.count_cores = false;
    out.push_back(std::move(entry));
  }
  return out;
}

// MPMD with host files (mpirun 4.1.4, measured): the -H hosts of every context when there are
// any (each file then only narrows its context), else every file's hosts, a host's first line
// giving its slots (hf1 "node1 slots=1", hf2 "node1 slots=2": node1 has 1 slot).
Result<HostList> hosts_of_context_files(const HostRequest& request, const FileReader& read) {
  const std::vector<std::string>& paths = request.context_hostfiles;
  HostList list;
  std::vector<std::string> lines;
  if (!request.host_values.empty()) {
    auto hosts = parse_host_values(request.host_values, request.host_value_contexts);
    if (!hosts) return hosts.error();
    list.hosts = std::move(hosts).value();
    for (const std::string& path : paths) {
      auto text = read(path);
      if (!text) return text.error();
      auto in_file = parse_hostfile(text.value(), path, &lines);
      if (!in_file) return in_file.error();
      for (const HostEntry& entry : in_file.value())
        list.hostfile_hosts[path].push_back(entry.name);
    }
    list.source = mpilaunch::format("-H {} (host files {} narrow their contexts)",
                                    fmt::join(request.host_values, " -H "), fmt::join(paths, ", "));
    return list;
  }
  for (const std::string& path : paths) {
    auto text = read(path);
    if (!text) return text.error();
    auto hosts = parse_hostfile(text.value(), path, &lines);
    if (!hosts) return hosts.error();
    std::vector<std::string>& names = list.hostfile_hosts[path];
    for (HostEntry& entry : hosts.value()) {
      names.push_back(entry.name);
      const bool known = std::any_of(list.hosts.begin(), list.hosts.end(), [&](const HostEntry& h) {
        return h.name == entry.name && h.user == entry.user;
      });
      if (!known) list.hosts.push_back(std::move(entry));
    }
  }
  list.source = mpilaunch::format("hostfiles {}", fmt::join(paths, ", "));
  return list;
}

Result<HostList> command_line_hosts(const HostRequest& request, const FileReader& read);

}  // namespace

HostRequest host_request(const Options& o) {
  HostRequest request{
      .host_values = o.hosts,
      .hostfile = o.hostfile,
      .hostfile_is_default = !o.hostfile.empty() && o.hostfile == o.default_hostfile};
  if (o.contexts.size() < 2) return request;
  std::vector<std::string> values;
  std::vector<std::size_t> contexts;
  for (std::size_t c = 0; c < o.contexts.size(); ++c)
    for (const std::string& value : o.contexts[c].hosts) {
      values.push_back(value);
      contexts.push_back(c);
    }
  if (values == o.hosts) request.host_value_contexts = std::move(contexts);
  for (const AppOptions& context : o.contexts)
    if (!context.hostfile.empty() &&
        std::find(request.context_hostfiles.begin(), request.context_hostfiles.end(),
                  context.hostfile) == request.context_hostfiles.end())
      request.context_hostfiles.push_back(context.hostfile);
  // The job's file (--default-hostfile) alike: -H narrows each context, it does not pick the
  // job's hosts.
  if (request.context_hostfiles.empty() && !o.hostfile.empty())
    request.context_hostfiles.push_back(o.hostfile);
  return request;
}

Result<HostList> narrow_allocation(HostList given, HostList allocation, bool slots_from_given,
                                   const std::string& this_host) {
  const auto same_node = [&](const std::string& a, const std::string& b) {
    return short_host_name(a) == short_host_name(b) ||
           (is_local_name(a, this_host) && is_local_name(b, this_host));
  };
  HostList out;
  out.source = mpilaunch::format("{}, narrowed by {}", allocation.source, given.source);
  std::vector<bool> inside(given.hosts.size(), false);
  for (const HostEntry& allocated : allocation.hosts) {
    std::optional<HostEntry> picked;
    long asked = 0;
    for (std::size_t i = 0; i < given.hosts.size(); ++i) {
      if (!same_node(given.hosts[i].name, allocated.name)) continue;
      inside[i] = true;
      if (!picked) picked = given.hosts[i];  // its user (and port) as the command line gave
      asked += given.hosts[i].slots;
    }
    if (!picked) continue;
    picked->name = allocated.name;  // mpirun's map names the allocation's node
    picked->slots = slots_from_given ? static_cast<int>(std::min<long>(asked, allocated.slots))
                                     : allocated.slots;
    picked->slots_given = true;
    picked->count_cores = false;
    // A context's host file names its hosts as the file does: the same node's name here.
    for (auto& [path, names] : given.hostfile_hosts)
      for (std::string& name : names)
        if (same_node(name, allocated.name)) name = picked->name;
    out.hosts.push_back(std::move(*picked));
  }
  for (std::size_t i = 0; i < given.hosts.size(); ++i)
    if (!inside[i]) out.outside_allocation.push_back(host_text(given.hosts[i]));
  if (out.hosts.empty())
    return Error{
        .kind = ErrorKind::NotEnoughSlots,
        .detail = mpilaunch::format(
            "all nodes which are allocated for this job are already filled: {} names no host of "
            "the allocation ({}), and inside an allocation mpirun's -H and --hostfile only pick "
            "among its hosts; name some of them, or leave -H and --hostfile out",
            given.source, allocation.source)};
  out.host_lines = std::move(given.host_lines);
  out.hostfile_hosts = std::move(given.hostfile_hosts);
  out.allocation = std::move(allocation.hosts);
  return out;
}

Result<HostList> select_hosts(const HostRequest& given_request, const EnvLookup& env,
                              const FileReader& read) {
  HostRequest request = given_request;
  // Inside a resource manager's allocation --default-hostfile counts for nothing and -H and
  // --hostfile narrow the allocation (mpirun 4.1.4, measured under Grid Engine).
  auto allocation = hosts_from_resource_manager(env, read);
  if (!allocation) return allocation.error();
  if (allocation.value() && request.hostfile_is_default) {
    if (request.context_hostfiles == std::vector<std::string>{request.hostfile})
      request.context_hostfiles.clear();
    request.hostfile.clear();
  }
  const bool named = !request.host_values.empty() || !request.hostfile.empty() ||
                     !request.context_hostfiles.empty();
  if (!named) {
    if (allocation.value()) return std::move(*allocation.value());
    auto found = hosts_from_default_hostfile(env, read);
    if (!found) return found.error();
    if (found.value()) return std::move(*found.value());
    return HostList{};
  }
  auto given = command_line_hosts(request, read);
  if (!given || !allocation.value()) return given;
  return narrow_allocation(std::move(given).value(), std::move(*allocation.value()),
                           !request.host_values.empty(), request.this_host);
}

namespace {

// The hosts -H and the host files name (select_hosts), as outside any allocation.
Result<HostList> command_line_hosts(const HostRequest& request, const FileReader& read) {
  if (!request.context_hostfiles.empty()) return hosts_of_context_files(request, read);
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
    auto hosts = parse_host_values(request.host_values, request.host_value_contexts);
    if (!hosts) return hosts.error();
    const std::string dash_h = mpilaunch::format("-H {}", fmt::join(request.host_values, " -H "));
    if (request.hostfile.empty()) {
      // The seq mapper's order: each -H word is a line ("-H a:2" is one).
      for (const std::string& value : request.host_values)
        for (const std::string_view item : split_at(value, ',')) {
          HostEntry entry;
          if (!read_host_item(trim_blanks(item), entry))
            list.host_lines.push_back(host_text(entry));
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
  list.hosts = std::move(from_file);
  return list;
}

}  // namespace

}  // namespace mpilaunch::launcher
