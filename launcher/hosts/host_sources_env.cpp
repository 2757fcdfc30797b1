// The resource-manager half of host_sources.hpp: each function reads one manager's variables
// and answers nullopt when that manager did not start this job.

#include "common/text.hpp"
#include "common/text_format.hpp"
#include "common/text_split.hpp"

#include <algorithm>
#include <map>

#include "launcher/hosts/host_sources.hpp"
#include "launcher/hosts/hostfile.hpp"
#include "launcher/hosts/hostlist.hpp"

namespace mpilaunch::launcher {
namespace {

using Found = Result<std::optional<HostList>>;

Error env_error(std::string detail) {
  return Error{.kind = ErrorKind::HostfileError, .detail = std::move(detail)};
}

// A file the variable names that could not be read: its reader's phase ("read") is kept.
Error env_error(std::string detail, const Error& read_error) {
  Error e = env_error(std::move(detail));
  e.phase = read_error.phase;
  return e;
}

std::vector<std::string_view> blank_separated(std::string_view text) {
  return words_of(text, " \t\r");
}

std::string shown_var(std::string_view name, std::string_view value) {
  return mpilaunch::format("{}={}", name, printable(value));
}

// A file named by `var`: its hosts, one line per slot or "host slots=N" lines. A resource
// manager's node file (`line_per_slot`) lists a host once per slot it allocated, so a host on
// one line has one slot; in an Open MPI host file such a line means the node's cores.
Found hosts_from_file(std::string_view var, const std::string& path, const FileReader& read,
                      std::string source, bool line_per_slot) {
  auto text = read(path);
  if (!text) return env_error(mpilaunch::format("{}: {}", var, text.error().detail), text.error());
  auto hosts = parse_hostfile(text.value(), path);
  if (!hosts) return hosts.error();
  if (line_per_slot)
    for (HostEntry& h : hosts.value()) h.count_cores = false;
  return std::optional<HostList>(HostList{std::move(hosts).value(), std::move(source)});
}

// Slurm: SLURM_JOB_NODELIST (or the older SLURM_NODELIST) names the nodes; SLURM_TASKS_PER_NODE
// (or SLURM_JOB_CPUS_PER_NODE) gives their slots, as Open MPI's ras/slurm reads them.
Found from_slurm(const EnvLookup& env) {
  std::string_view list_var = "SLURM_JOB_NODELIST";
  auto list = env(list_var);
  if (!list) list = env(list_var = "SLURM_NODELIST");
  if (!list) return std::optional<HostList>();
  const std::string shown_list = shown_var(list_var, *list);
  auto names = expand_hostlist(*list, shown_list);
  if (!names) return names.error();
  std::string_view count_var = "SLURM_TASKS_PER_NODE";
  auto counts_text = env(count_var);
  if (!counts_text) counts_text = env(count_var = "SLURM_JOB_CPUS_PER_NODE");
  std::vector<int> counts(names->size(), 1);
  std::string source = "slurm " + shown_list;
  if (counts_text) {
    const std::string shown_counts = shown_var(count_var, *counts_text);
    auto expanded = expand_node_counts(*counts_text, shown_counts);
    if (!expanded) return expanded.error();
    if (expanded->size() != names->size())
      return env_error(
          mpilaunch::format("{} gives {} counts for the {} nodes of {}; they must match",
                            shown_counts, expanded->size(), names->size(), shown_list));
    counts = std::move(expanded).value();
    source += " " + shown_counts;
  }
  HostListBuilder hosts;
  for (std::size_t i = 0; i < names->size(); ++i)
    if (!hosts.add(HostEntry{.name = (*names)[i], .slots = counts[i], .slots_given = true}))
      return env_error(mpilaunch::format("{}: {} has more than {} slots", shown_list, (*names)[i],
                                         kMaxSlotsPerHost));
  return std::optional<HostList>(HostList{std::move(hosts).take(), std::move(source)});
}

// Grid Engine (SGE, Son of Grid Engine, OGS): PE_HOSTFILE names "host slots queue processors"
// lines, read as mpirun 4.1.4's ras/gridengine reads them (measured): only when SGE_ROOT, ARC,
// PE_HOSTFILE and JOB_ID are all set; a host on several lines adds their slots; a name's domain
// goes (node1.cluster is node1) unless it is an address. mpirun crashes (SIGSEGV) on a line
// without a slot count or on a file it cannot read; here each is one error naming it.
Found from_gridengine(const EnvLookup& env, const FileReader& read) {
  const auto path = env("PE_HOSTFILE");
  if (!path || !env("SGE_ROOT") || !env("ARC") || !env("JOB_ID")) return std::optional<HostList>();
  const std::string shown = shown_var("PE_HOSTFILE", *path);
  auto text = read(*path);
  if (!text)
    return env_error(mpilaunch::format("PE_HOSTFILE: {}", text.error().detail), text.error());
  HostListBuilder hosts;
  std::string_view body = *text;
  if (body.ends_with('\n')) body.remove_suffix(1);  // the last line's end, not an empty line
  int line_no = 0;
  for (const std::string_view line :
       body.empty() ? std::vector<std::string_view>{} : split_at(body, '\n')) {
    ++line_no;
    const auto fields = blank_separated(line);
    const auto where = mpilaunch::format("{}:{}", *path, line_no);
    if (fields.size() < 2)
      return env_error(mpilaunch::format(
          "{}: expected 'host slots queue processors', as Grid Engine writes PE_HOSTFILE", where));
    const auto slots = parse_slot_count(fields[1]);
    if (!slots)
      return env_error(mpilaunch::format("{}: '{}' after {} is not a slot count", where,
                                         printable(fields[1]), printable(fields[0])));
    std::string name(fields[0]);
    name = short_host_name(name);
    HostEntry entry{.slots = *slots, .slots_given = true};
    if (auto why = read_user_and_name(name, entry))
      return env_error(mpilaunch::format("{}: {}", where, *why));
    if (!hosts.add(std::move(entry)))
      return env_error(
          mpilaunch::format("{}: more than {} slots on one host", where, kMaxSlotsPerHost));
  }
  if (hosts.hosts().empty())
    return env_error(
        mpilaunch::format("{} lists no host: was the job submitted with a parallel "
                          "environment (qsub -pe NAME SLOTS)?",
                          shown));
  return std::optional<HostList>(HostList{std::move(hosts).take(), "gridengine " + shown});
}

// PBS/Torque: PBS_NODEFILE names a file with one line per slot.
Found from_pbs(const EnvLookup& env, const FileReader& read) {
  const auto path = env("PBS_NODEFILE");
  if (!path) return std::optional<HostList>();
  return hosts_from_file("PBS_NODEFILE", *path, read, "pbs " + shown_var("PBS_NODEFILE", *path),
                         true);
}

// LSF: LSB_MCPU_HOSTS ("h1 2 h2 4"), else LSB_DJOB_HOSTFILE (one line per slot).
Found from_lsf(const EnvLookup& env, const FileReader& read) {
  if (const auto pairs = env("LSB_MCPU_HOSTS")) {
    const std::string shown = shown_var("LSB_MCPU_HOSTS", *pairs);
    const std::vector<std::string_view> words = blank_separated(*pairs);
    if (words.empty() || words.size() % 2 != 0)
      return env_error(
          mpilaunch::format("{}: expected pairs of host and slot count, e.g. 'h1 2 h2 4'", shown));
    HostListBuilder hosts;
    for (std::size_t i = 0; i < words.size(); i += 2) {
      HostEntry entry{.slots_given = true};
      const auto slots = parse_slot_count(words[i + 1]);
      if (!slots)
        return env_error(mpilaunch::format("{}: '{}' after {} is not a slot count", shown,
                                           printable(words[i + 1]), printable(words[i])));
      entry.slots = *slots;
      if (auto why = read_user_and_name(words[i], entry))
        return env_error(mpilaunch::format("{}: {}", shown, *why));
      if (!hosts.add(std::move(entry)))
        return env_error(
            mpilaunch::format("{}: more than {} slots on one host", shown, kMaxSlotsPerHost));
    }
    return std::optional<HostList>(HostList{std::move(hosts).take(), "lsf " + shown});
  }
  const auto path = env("LSB_DJOB_HOSTFILE");
  if (!path) return std::optional<HostList>();
  return hosts_from_file("LSB_DJOB_HOSTFILE", *path, read,
                         "lsf " + shown_var("LSB_DJOB_HOSTFILE", *path), true);
}

// HTCondor's parallel universe, as its openmpiscript/mp1script set it up: every node runs
// sshd.sh, which appends "procno host port user dir ..." to the contact file
// ($_CONDOR_SCRATCH_DIR/contact, or CONDOR_CONTACT_FILE); node 0 (_CONDOR_PROCNO=0) launches
// on all _CONDOR_NPROCS nodes, one slot each, in procno order.
Found from_htcondor(const EnvLookup& env, const FileReader& read) {
  const auto procno = env("_CONDOR_PROCNO");
  const auto nprocs = env("_CONDOR_NPROCS");
  if (!procno || !nprocs) return std::optional<HostList>();
  if (*procno != "0")
    return env_error(mpilaunch::format(
        "_CONDOR_PROCNO={}: only node 0 of an HTCondor parallel job launches; run mpilaunch "
        "there, as openmpiscript does, and let the other nodes wait",
        printable(*procno)));
  const auto expected = parse_slot_count(*nprocs);
  if (!expected)
    return env_error(
        mpilaunch::format("_CONDOR_NPROCS={} is not a node count", printable(*nprocs)));
  std::string path = env("CONDOR_CONTACT_FILE").value_or("");
  if (path.empty()) {
    const auto scratch = env("_CONDOR_SCRATCH_DIR");
    if (!scratch)
      return env_error(
          "HTCondor parallel universe: neither CONDOR_CONTACT_FILE nor "
          "_CONDOR_SCRATCH_DIR is set, so the contact file cannot be found");
    path = *scratch + "/contact";
  }
  auto text = read(path);
  if (!text)
    return env_error(mpilaunch::format("HTCondor contact file: {}", text.error().detail),
                     text.error());
  std::map<int, HostEntry> by_procno;
  int line_no = 0;
  // Every line counts, blank ones too; a '#' is data here (content_lines() would cut it).
  for (const std::string_view line : split_at(*text, '\n')) {
    const auto fields = blank_separated(line);
    ++line_no;
    if (fields.empty()) continue;
    const auto where = mpilaunch::format("{}:{}", path, line_no);
    if (fields.size() < 4)
      return env_error(mpilaunch::format("{}: expected 'procno host port user dir'", where));
    HostEntry entry{.slots_given = true};
    const auto port = parse_slot_count(fields[2]);
    if (!port || *port > 65535)
      return env_error(mpilaunch::format("{}: '{}' is not a port", where, printable(fields[2])));
    entry.port = *port;
    if (auto why = read_user_and_name(mpilaunch::format("{}@{}", fields[3], fields[1]), entry))
      return env_error(mpilaunch::format("{}: {}", where, *why));
    // procno counts from 0; parse_slot_count takes 1 and up.
    const auto node = fields[0] == "0" ? std::optional<int>(0) : parse_slot_count(fields[0]);
    if (!node || !by_procno.emplace(*node, std::move(entry)).second)
      return env_error(
          mpilaunch::format("{}: '{}' is not a new node number", where, printable(fields[0])));
  }
  if (by_procno.size() != static_cast<std::size_t>(*expected))
    return env_error(mpilaunch::format(
        "{} lists {} of the {} nodes (_CONDOR_NPROCS); the others have not started sshd.sh yet",
        path, by_procno.size(), *expected));
  HostList list{.source =
                    mpilaunch::format("htcondor _CONDOR_NPROCS={} contact file {}", *nprocs, path)};
  for (auto& [node, entry] : by_procno) list.hosts.push_back(std::move(entry));
  return std::optional<HostList>(std::move(list));
}

// Open MPI's default hostfile variable (the Kubeflow MPI Operator sets it), else the file the
// Operator mounts at /etc/mpi/hostfile when it can be read. Open MPI 5's
// PRTE_MCA_prte_default_hostfile is not read: mpirun 4.1.4 ignores it (measured: with it naming
// an unknown host, mpirun runs on this machine alone, exit 0), as it ignores every PRTE_*.
Found from_default_hostfile(const EnvLookup& env, const FileReader& read) {
  constexpr std::string_view var = "OMPI_MCA_orte_default_hostfile";
  if (const auto path = env(var))
    return hosts_from_file(var, *path, read, shown_var(var, *path), false);
  const std::string mounted = "/etc/mpi/hostfile";
  if (auto text = read(mounted)) {
    auto hosts = parse_hostfile(text.value(), mounted);
    if (!hosts) return hosts.error();
    return std::optional<HostList>(HostList{std::move(hosts).value(), "hostfile " + mounted});
  }
  // Open MPI's own default host file (orte_default_hostfile's default), which mpirun 4.1.4
  // reads when nothing else gives hosts (measured: "localhost slots=3" there gives 3 slots).
  // Debian ships it with comments only: this machine alone, as without it.
  auto text = read(kOpenMpiDefaultHostfile);
  if (!text || content_lines(text.value()).empty()) return std::optional<HostList>();
  auto hosts = parse_hostfile(text.value(), kOpenMpiDefaultHostfile);
  if (!hosts) return hosts.error();
  return std::optional<HostList>(HostList{
      std::move(hosts).value(), mpilaunch::format("hostfile {}", kOpenMpiDefaultHostfile)});
}

}  // namespace

Result<std::optional<HostList>> hosts_from_resource_manager(const EnvLookup& env,
                                                            const FileReader& read) {
  for (const auto& source : {
           std::function<Found()>([&] { return from_gridengine(env, read); }),
           std::function<Found()>([&] { return from_slurm(env); }),
           std::function<Found()>([&] { return from_pbs(env, read); }),
           std::function<Found()>([&] { return from_lsf(env, read); }),
           std::function<Found()>([&] { return from_htcondor(env, read); }),
       }) {
    Found found = source();
    if (!found || found.value()) return found;
  }
  return std::optional<HostList>();
}

Result<std::optional<HostList>> hosts_from_default_hostfile(const EnvLookup& env,
                                                            const FileReader& read) {
  return from_default_hostfile(env, read);
}

}  // namespace mpilaunch::launcher
