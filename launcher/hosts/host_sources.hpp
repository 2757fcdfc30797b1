#pragma once
/// Where a run's hosts come from: -H, --hostfile, or the resource manager that started the job.
/// Pure: the environment and files are reached only through the two callbacks.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "launcher/cli/options.hpp"
#include "launcher/hosts/host_entry.hpp"

namespace mpilaunch::launcher {

/// An environment variable's value; nullopt when it is unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;
/// A whole file's text, or an Error (HostfileError, "path: cannot be read: why").
using FileReader = std::function<Result<std::string>(const std::string& path)>;

/// Open MPI's default host file on Debian (the default of its orte_default_hostfile parameter).
inline constexpr const char* kOpenMpiDefaultHostfile = "/etc/openmpi/openmpi-default-hostfile";

/// What the command line asked for.
struct HostRequest {
  std::vector<std::string> host_values;  // each -H/--host value, in order
  /// With several application contexts: the context of each host_values entry. As under mpirun
  /// 4.1.4 (measured), a host named by several contexts' -H has the slots the last of them gives
  /// it (`-n 1 -H b:2 P : -n 1 -H b P`: one slot), its mentions within one context adding up.
  std::vector<std::size_t> host_value_contexts;
  std::string hostfile;  // --hostfile/--machinefile path, empty when not given
  /// Several application contexts (MPMD, --app) and host files: every context's file (else
  /// the job's), distinct, in context order (`hostfile` unused). As in mpirun 4.1.4, the job's
  /// hosts are then every context's -H hosts when there are any, else all the files' hosts, the
  /// first file naming a host giving its slots; each file and each -H narrows its own context
  /// (the plan does that, from HostList::hostfile_hosts).
  std::vector<std::string> context_hostfiles;
  /// The host file is --default-hostfile's (none given with --hostfile or on a context): inside
  /// a resource manager's allocation mpirun 4.1.4 ignores it (measured).
  bool hostfile_is_default = false;
  /// This machine's hostname: "localhost" and it name the same allocated node.
  std::string this_host;
};

/// What the command line `o` asks for: its -H values and host file; with several application
/// contexts and a host file, every context's file (else the job's) as context_hostfiles.
HostRequest host_request(const Options& o);

/// The hosts of a run. The command line's: -H values (all of them, merged), the --hostfile,
/// or both, in which case -H picks hosts out of the hostfile, which gives their slots unless
/// -H does; inside a resource manager's allocation they only pick among its hosts, as mpirun
/// 4.1.4's do (narrow_allocation). Otherwise the first resource manager found, in this order:
/// Grid Engine, Slurm, PBS/Torque, LSF, HTCondor; else an Open MPI default hostfile
/// (--default-hostfile, OMPI_MCA_orte_default_hostfile as the Kubeflow MPI Operator sets),
/// /etc/mpi/hostfile, Open MPI's own default host file when it names a host.
/// `source` says which ("slurm SLURM_JOB_NODELIST=n[1-2] ..."); an empty list with an empty
/// source means none of them: isolated local mode.
Result<HostList> select_hosts(const HostRequest& request, const EnvLookup& env,
                              const FileReader& read);

/// An Open MPI default host file (--default-hostfile, OMPI_MCA_orte_default_hostfile,
/// /etc/mpi/hostfile, Open MPI's own when it names a host): select_hosts' last resort, nullopt
/// when none is found.
Result<std::optional<HostList>> hosts_from_default_hostfile(const EnvLookup& env,
                                                            const FileReader& read);

/// A resource manager's allocation only (Grid Engine, Slurm, PBS/Torque, LSF, HTCondor), no
/// default host file: nullopt outside one.
Result<std::optional<HostList>> hosts_from_resource_manager(const EnvLookup& env,
                                                            const FileReader& read);

/// mpirun 4.1.4 inside a resource manager's allocation (measured under Grid Engine): the hosts
/// `given` (-H, host files) only pick among the allocation's, which keep its order and slots; a
/// host file's slots= count for nothing, -H's cap the allocation's (-H vm:4 with 2 allocated is
/// 2, -H vm is 1); a named host outside the allocation is left out (outside_allocation); none
/// left is NotEnoughSlots ("All nodes which are allocated for this job are already filled").
/// The result's `allocation` is the allocation's hosts, for MPI_UNIVERSE_SIZE.
Result<HostList> narrow_allocation(HostList given, HostList allocation, bool slots_from_given,
                                   const std::string& this_host);

}  // namespace mpilaunch::launcher
