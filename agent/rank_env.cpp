#include "agent/rank_env.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <utility>

#include "agent/topology_key.hpp"

namespace mpilaunch::agent {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

class EnvBuilder {
 public:
  void set(const std::string& entry) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) return;
    set(entry.substr(0, eq), entry.substr(eq + 1));
  }
  void set(const std::string& name, const std::string& value) {
    auto [it, inserted] = index_.try_emplace(name, entries_.size());
    if (inserted) {
      entries_.push_back(name + "=" + value);
    } else {
      entries_[it->second] = name + "=" + value;
    }
  }
  void set_default(const std::string& name, const std::string& value) {
    if (!index_.contains(name)) set(name, value);
  }
  bool has(const std::string& name) const { return index_.contains(name); }
  /// The value of `name`, or nothing when it is not set.
  std::optional<std::string> get(const std::string& name) const {
    const auto it = index_.find(name);
    if (it == index_.end()) return std::nullopt;
    return entries_[it->second].substr(name.size() + 1);
  }
  std::vector<std::string> take() { return std::move(entries_); }

 private:
  std::vector<std::string> entries_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace

bool is_stripped_variable(const std::string& name) {
  static constexpr std::string_view kPrefixes[] = {"PMIX_",
                                                   "PMI_",
                                                   "OMPI_MCA_pmix",
                                                   "OMPI_MCA_schizo",
                                                   "OMPI_MCA_ess",
                                                   "OMPI_MCA_orte_launch",
                                                   "OMPI_MCA_orte_bound_at_launch",
                                                   "OMPI_COMM_WORLD_",
                                                   "OMPI_UNIVERSE_SIZE",
                                                   "OMPI_FILE_LOCATION",
                                                   "OMPI_NUM_APP_CTX",
                                                   "OMPI_APP_CTX_NUM_PROCS",
                                                   "OMPI_FIRST_RANKS",
                                                   "OMPI_COMMAND",
                                                   "OMPI_ARGV",
                                                   "OMPI_MCA_orte_app_num",
                                                   "MPILAUNCH_ATTEMPT",
                                                   "MPI_LOCALNRANKS",
                                                   "MPI_LOCALRANKID"};
  for (std::string_view prefix : kPrefixes)
    if (starts_with(name, prefix)) return true;
  return false;
}

std::vector<std::string> build_rank_env(const RankEnvInput& in) {
  EnvBuilder env;
  for (const std::string& entry : in.inherited) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos || is_stripped_variable(entry.substr(0, eq))) continue;
    env.set(entry);
  }
  for (const std::string& entry : in.pmix) env.set(entry);

  const RankPlacement& p = in.placement;
  // Open MPI 4.1's schizo components each judge how the rank was started, and their verdict
  // overrides the PMIx server in the environment: orte finds no known launcher, and slurm (in
  // an allocation without a job step: SLURM_NODELIST and no SLURM_STEP_ID, as salloc leaves
  // it for --launcher=local or ssh) declares a "managed singleton". Either turns every rank
  // into a singleton, rank 0 of 1. flux, jsm and alps judge their own resource managers the
  // same way. mpilaunch is the launcher here, so none of them may decide
  // (docs/architecture.md, "direct launch").
  env.set("OMPI_MCA_schizo", "^orte,slurm,flux,jsm,alps");
  env.set("OMPI_COMM_WORLD_SIZE", std::to_string(p.size));
  env.set("OMPI_COMM_WORLD_RANK", std::to_string(p.rank));
  env.set("OMPI_COMM_WORLD_LOCAL_SIZE", std::to_string(p.local_size));
  env.set("OMPI_COMM_WORLD_LOCAL_RANK", std::to_string(p.local_rank));
  env.set("OMPI_COMM_WORLD_NODE_RANK", std::to_string(p.node_rank));
  env.set("OMPI_UNIVERSE_SIZE", std::to_string(p.universe_size > 0 ? p.universe_size : p.size));
  // The application contexts as mpirun 4.1.4 describes them to every rank: their number, each
  // one's size, and "first ranks", which mpirun gives as 0 for every context (measured).
  const RankApp& app = in.app;
  std::string sizes, firsts;
  for (const std::uint32_t n : app.app_sizes) {
    sizes += (sizes.empty() ? "" : " ") + std::to_string(n);
    firsts += firsts.empty() ? "0" : " 0";
  }
  if (app.app_sizes.empty()) {
    sizes = std::to_string(p.size);
    firsts = "0";
  }
  env.set("OMPI_NUM_APP_CTX", std::to_string(std::max<std::size_t>(1, app.app_sizes.size())));
  env.set("OMPI_APP_CTX_NUM_PROCS", sizes);
  env.set("OMPI_FIRST_RANKS", firsts);
  env.set("OMPI_MCA_orte_app_num", std::to_string(app.appnum));
  // The rank's program as mpirun names it (its base name) and its arguments, space-joined.
  if (!app.argv.empty()) {
    const std::string& program = app.argv.front();
    env.set("OMPI_COMMAND", program.substr(program.find_last_of('/') + 1));
    std::string args;
    for (std::size_t i = 1; i < app.argv.size(); ++i) args += (i > 1 ? " " : "") + app.argv[i];
    if (app.argv.size() > 1) env.set("OMPI_ARGV", args);
  }
  // A shell (and getenv("PWD")) takes PWD as the directory it started in; the inherited value is
  // the launcher's or the agent's. A -x PWD=... still wins (applied below).
  if (!app.wdir.empty()) env.set("PWD", app.wdir);
  // As mpirun sets it for every rank: on an oversubscribed node Open MPI's progress loop then
  // yields the CPU when idle instead of spinning (a 3-rank ring on 2 cores: 9.2 s against
  // 0.006 s). A user's --mca/-x value still wins (applied below).
  env.set("OMPI_MCA_mpi_oversubscribe", p.oversubscribed ? "1" : "0");
  // As mpirun says it to ranks it bound: Open MPI then takes its locality from the binding.
  if (in.bound) env.set("OMPI_MCA_orte_bound_at_launch", "1");
  env.set("MPILAUNCH_ATTEMPT", std::to_string(p.attempt));
  // Keep every shared-memory segment and session file inside the job's directory, so that
  // removing that directory cleans up even after a killed run.
  if (in.pmi_fd >= 0) {
    // The PMI-1 "simple" contact of MPICH and other PMI clients (docs/pmi.md).
    env.set("PMI_FD", std::to_string(in.pmi_fd));
    env.set("PMI_RANK", std::to_string(p.rank));
    env.set("PMI_SIZE", std::to_string(p.size));
    env.set("MPI_LOCALNRANKS", std::to_string(p.local_size));
    env.set("MPI_LOCALRANKID", std::to_string(p.local_rank));
  }
  if (!in.vader_dir.empty()) env.set("OMPI_MCA_btl_vader_backing_directory", in.vader_dir);
  if (!in.ompi_tmpdir.empty()) env.set("OMPI_MCA_orte_tmpdir_base", in.ompi_tmpdir);

  for (const std::string& entry : in.job) env.set(entry);
  if (!in.prefix.empty()) {
    for (const auto& [name, sub] :
         {std::pair{"PATH", "/bin"}, std::pair{"LD_LIBRARY_PATH", "/lib"}}) {
      const std::string dir = in.prefix + sub;
      const std::string assignment = std::string(name) + "=";
      const bool from_job = std::any_of(in.job.begin(), in.job.end(), [&](const std::string& e) {
        return starts_with(e, assignment);
      });
      const std::optional<std::string> value = env.get(name);
      if (from_job)
        env.set(name, dir + ":" + value.value_or(""));
      else
        env.set(name, dir + ":" + dir + (value ? ":" + *value : ""));
    }
  }
  // Ranks that all run on one machine (virtual nodes of it, or a job whose every rank is on
  // this node) reach each other over loopback, unless the user chose interfaces (an include
  // and an exclude list together are an error to Open MPI). Besides keeping such traffic off
  // the network, it avoids Open MPI 5.0.7's tcp BTL pairing bug: on a machine whose interface
  // lists an IPv6 address first, its reachable/netlink component compares two IPv6 addresses
  // by pointer, finds a peer on the same address unreachable and prints "Unable to find
  // reachable pairing between local and remote interfaces" for every pair of ranks (mpirun 5
  // too); on loopback the route check succeeds.
  if ((in.virtual_nodes || in.whole_job_here) && !env.has("OMPI_MCA_btl_tcp_if_include") &&
      !env.has("OMPI_MCA_btl_tcp_if_exclude"))
    env.set("OMPI_MCA_btl_tcp_if_include", "lo");
  std::vector<std::string> out = env.take();
  // Open MPI's and MPICH's ranks each discover the machine with hwloc in MPI_Init, PCI
  // devices included (half of an MPICH hello's run time here). The agent's XML of the same
  // discovery, complete (every object kept, I/O devices and disallowed CPUs included: each
  // reader's own filters and allowed set apply on import), gives them the same topology.
  // HWLOC_THISSYSTEM: it is this machine, so binding stays allowed.
  if (!in.topology_xml.empty() && !topology_steered(out, in.inherited)) {
    out.push_back("HWLOC_XMLFILE=" + in.topology_xml);
    out.push_back("HWLOC_THISSYSTEM=1");
  }
  return out;
}

bool topology_steered(const std::vector<std::string>& rank_env,
                      const std::vector<std::string>& agent_env) {
  for (const std::string& entry : rank_env)
    if (starts_with(entry, "HWLOC_")) return true;
  return gpu_visibility(rank_env) != gpu_visibility(agent_env);
}

std::string_view default_gds(std::size_t local_ranks, std::size_t job_size, bool shared_store) {
  return shared_store && local_ranks * job_size >= kSharedStoreWork ? "ds21,hash" : "hash";
}

std::optional<std::string> gds_without_shared_store(std::string_view value) {
  if (value.starts_with('^')) return std::nullopt;
  std::string out;
  bool dropped = false;
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    const std::string_view item = value.substr(0, comma);
    if (item == "ds21" || item == "ds12") {
      dropped = true;
    } else if (!item.empty()) {
      if (!out.empty()) out += ',';
      out += item;
    }
    value.remove_prefix(comma == std::string_view::npos ? value.size() : comma + 1);
  }
  if (!dropped) return std::nullopt;
  return out;
}

bool offers_shared_store(std::string_view pmix_version) {
  const std::size_t digit = pmix_version.find_first_of("0123456789");
  if (digit == std::string_view::npos) return true;  // unknown: as before, libpmix decides
  int major = 0;
  for (std::size_t i = digit;
       i < pmix_version.size() && pmix_version[i] >= '0' && pmix_version[i] <= '9' && major < 1000;
       ++i)
    major = major * 10 + (pmix_version[i] - '0');
  return major < 5;
}

std::size_t shared_store_meta_bytes(std::size_t job_size) {
  constexpr std::size_t kPage = 4096, kHeader = 8, kEntry = 24;  // size_t count; 3 x size_t
  if (job_size >= (kSharedStoreMetaDefault - kHeader) / kEntry) return kSharedStoreMetaDefault;
  const std::size_t bytes = kHeader + kEntry * (job_size + 1);
  return (bytes + kPage - 1) / kPage * kPage;
}

std::optional<std::string> gds_with_hash(std::string_view value) {
  const bool exclude = value.starts_with('^');
  if (exclude) value.remove_prefix(1);
  std::vector<std::string> kept;
  bool has_hash = false;
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    const std::string_view item = value.substr(0, comma);
    if (item == "hash")
      has_hash = true;
    else if (!item.empty())
      kept.emplace_back(item);
    value.remove_prefix(comma == std::string_view::npos ? value.size() : comma + 1);
  }
  if (exclude) {
    if (!has_hash) return std::nullopt;  // "^ds12": hash stays available
    if (kept.empty()) return std::string("hash");
    std::string out = "^";
    for (std::size_t i = 0; i < kept.size(); ++i) out += (i > 0 ? "," : "") + kept[i];
    return out;
  }
  if (has_hash) return std::nullopt;
  std::string out;
  for (const std::string& item : kept) out += item + ",";
  return out + "hash";
}

}  // namespace mpilaunch::agent
