// Phrases every runtime shares: ssh and the remote shell, signal dumps, Open MPI's MPI layer
// and the help texts ORTE and PRRTE print with the same wording. Sources are cited per group
// as help file [topic] or C file; see /work/shared/notes/message-catalog.md.

#include "launcher/diagnose/console_pattern.hpp"

namespace mpilaunch::launcher {
namespace {

using K = ErrorKind;

constexpr Pattern kCommonRows[] = {
    // orted_submit.c / schizo_base_stubs.c: the root refusal, with or without a leading banner.
    block(K::RunAsRootRefused, "has detected an attempt to run as root"),
    block(K::RunAsRootRefused, "cannot provide the help message when run as root"),

    // The raw lines ssh and the remote shell print before the daemon banner.
    line(K::UnknownHost, "Could not resolve hostname {host}: Name or service not known"),
    line(K::AgentStartFailed, "Could not resolve hostname {host}: Temporary failure in")
        .in_phase("resolve"),
    line(K::AgentStartFailed, "connect to host {host} port {_}: Connection refused")
        .in_phase("connect"),
    line(K::AgentStartFailed, "connect to host {host} port {_}: Connection timed out")
        .in_phase("connect"),
    line(K::AgentStartFailed, "connect to host {host} port {_}: No route to host")
        .in_phase("connect"),
    line(K::AgentStartFailed, "Permission denied (publickey").in_phase("auth"),
    line(K::AgentStartFailed, "Authentication refused:").in_phase("auth"),
    line(K::AgentStartFailed, "Host key verification failed").in_phase("hostkey"),
    line(K::AgentStartFailed, "REMOTE HOST IDENTIFICATION HAS CHANGED").in_phase("hostkey"),
    line(K::AgentStartFailed, "orted: command not found").in_phase("exec"),
    line(K::AgentStartFailed, "prted: command not found").in_phase("exec"),
    line(K::AgentStartFailed, "hydra_pmi_proxy: No such file or directory").in_phase("exec"),
    line(K::AgentStartFailed, "error while loading shared libraries: {detail}:").in_phase("exec"),
    line(K::AgentLost, "Connection to {host} closed by remote host"),

    // opal/util/stacktrace.c: the dump a rank prints when its signal handler runs; UCX's line.
    block(K::RankSignaled, "*** Process received signal ***", {"Signal: {*}({signal})"})
        .host_from_line(),
    line(K::RankSignaled, "Caught signal {signal} (").host_from_line(),

    // help-orterun.txt / help-prun.txt: the launcher's report of a failed job.
    block(
        K::RankSignaled,
        "noticed that process rank {rank} with PID {pid} on node {host} exited on signal {signal}")
        .about("proc-aborted-strsignal"),
    block(K::RankExitNonzero, "detected that one or more processes exited with non-zero status",
          {"Process name: {procname}", "Exit code: {exit}"})
        .about("non-zero-exit"),
    block(K::RankExitNonzero, "job terminated normally,")
        .about("normal-termination-but")
        .as(Role::Consequence),
    block(K::RankCalledAbort,
          "has exited due to process rank {rank} with PID {pid} on node {host} calling \"abort\"")
        .about("proc-ordered-abort"),
    block(K::RankNoFinalize,
          "has exited due to process rank {rank} with PID {pid} on node {host} exiting improperly")
        .about("proc-exit-no-sync"),
    block(K::RankNoFinalize, "has exited due to a process exiting without calling \"finalize\""),
    block(K::ExecutableNotFound, "was unable to find the specified executable file",
          {"first reported for process rank {rank}", "Node: {host}", "Executable: {exe}"})
        .about("exe-not-found"),
    block(K::ExecutableNotExecutable, "tried to fork a new process via the \"execve\" system",
          {"Local host: {host}", "Application name: {exe}", "Error: {line}"})
        .about("execve error"),
    block(K::NotEnoughSlots,
          "There are not enough slots available in the system to satisfy the {detail} slots",
          {"requested by the application: {exe}"})
        .about("alloc-error"),
    block(K::NotEnoughSlots,
          "not enough slots on the nodes in your allocation to satisfy your request to launch on "
          "a {detail} process-per-node basis")
        .about("n-per-node-and-not-enough-slots"),
    block(K::NotEnoughSlots, "All nodes which are allocated for this job are already filled")
        .about("all-available-resources-used"),
    block(K::NotEnoughSlots, "would result in binding more processes than cpus", {"Node: {host}"})
        .about("binding-overload"),
    block(K::OutOfResources, "Error: system limit exceeded on {line}",
          {"Node: {host}", "start process rank {rank}"}),
    block(K::OutOfResources, "A process exceeded memory limits", {"Node: {host}"}),

    // help-errmgr-base.txt, help-plm-base.txt: daemons that never came up, or went away.
    block(K::AgentStartFailed, "unable to reliably start one or more daemons")
        .about("failed-daemon-launch"),
    block(K::AgentStartFailed, "unexpectedly failed after launch and before communicating back")
        .about("failed-daemon")
        .in_phase("handshake"),
    block(K::AgentStartFailed, "A daemon died unexpectedly with status {exit} while attempting")
        .about("daemon-died-no-signal"),
    block(K::AgentStartFailed, "No available launching agents were found")
        .about("no-available-pls")
        .in_phase("exec"),
    block(K::AgentLost, "has lost communication with a remote daemon",
          {"Remote daemon: {_} on node {host}"})
        .about("node-died"),
    block(K::AgentLost, "A critical communication path was lost to", {"Node: {host}"})
        .about("proc-comm-failed"),
    block(K::AgentLost, "failed to receive scheduled heartbeat communications"),

    // help-hostfile.txt, help-dash-host.txt (ORTE says "Open RTE", PRRTE "PRTE").
    block(K::HostfileError, "was unable to open the hostfile: {detail}")
        .in_phase("read")
        .about("no-hostfile"),
    block(K::HostfileError, "detected a parse error in the hostfile: {detail}",
          {"It occured on line number {lineno}"})
        .about("parse_error"),
    block(K::HostfileError, "detected a bad parameter in the hostfile: {detail}").about("slots"),
    block(K::HostfileError, "contains multiple definitions of the slot count",
          {"hostfile: {detail}"}),
    block(K::HostfileError, "requested hosts is not included in the current allocation",
          {"Missing requested host: {host}"})
        .about("not-all-mapped-alloc"),

    // help-orterun.txt [orterun:timeout]; plm_base_launch_support.c in PRRTE.
    block(K::Timeout, "time limit for job execution has been reached: Timeout: {detail} seconds")
        .about("timeout")
        .in_phase("job")
        .unit("s"),
    block(K::Timeout, "time limit for job launch has been reached: Timeout: {detail} seconds")
        .in_phase("launch")
        .unit("s"),

    // help-mca-base.txt, help-pmix-mca-base.txt, help-mca-var.txt: configuration warnings.
    block(K::ComponentNotFound, "A requested component was not found, or was unable to be opened",
          {"Host: {host}", "Framework: {detail}", "Component: {detail2}"})
        .about("find-available:not-valid")
        .as(Role::Warning)
        .joined_by("/"),
    block(K::ComponentNotFound, "No components were able to be opened in the {detail} framework",
          {"Host: {host}"})
        .about("find-available:none found")
        .as(Role::Warning),
    block(K::BadOption, "An invalid value was supplied for an enum variable",
          {"Variable : {detail}", "Value : {detail2}"})
        .about("invalid-value-enum")
        .as(Role::Warning)
        .joined_by("="),

    // help-mpi-api.txt [MPI function not supported]: what Open MPI says when its runtime answers
    // a dynamic-process call (spawn, publish, connect) with "not supported".
    block(K::UnsupportedMpiCall,
          "has invoked an MPI function that is not supported in this environment",
          {"MPI function: {detail}"})
        .about("MPI function not supported"),

    // help-mpi-api.txt [mpi-abort] (4.1 "with errorcode N", 5.0 "Errorcode: N").
    block(K::RankCalledAbort, "MPI_ABORT was invoked on rank {rank} in communicator",
          {"with errorcode {exit}", "Errorcode: {exit}"})
        .about("mpi-abort"),

    // help-mpi-runtime.txt, help-mpi-errors.txt, help-pmix-*.txt: start-up failures.
    block(K::MpiInitFailed, "It looks like MPI_INIT failed for some reason", {"developer): {line}"})
        .about("mpi_init:startup:internal-failure"),
    line(K::MpiInitFailed, "*** An error occurred in MPI_Init")
        .about("mpi_errors_are_fatal")
        .host_from_line(),
    line(K::MpiInitFailed, "Local abort before MPI_INIT completed").host_from_line(),
    block(K::MpiInitFailed, "It looks like pmix_init failed for some reason"),
    block(K::MpiInitFailed, "It looks like opal_init failed for some reason"),
    // shmem_mmap_module.c and help-opal-shmem-mmap.txt [target full]: a rank could not make
    // its shared-memory file, in a directory its agent created (so the rank does not see the
    // agent's /dev/shm), or /dev/shm had no room. Open MPI then drops the sm BTL; when nothing
    // else reaches the peers, MPI_Init fails, and these lines name why.
    line(K::MpiInitFailed, "shmem: mmap: an error occurred while determining whether or not")
        .in_phase("shared-memory")
        .as(Role::Context)
        .host_from_line(),
    block(K::MpiInitFailed,
          "It appears as if there is not enough space for {_} (the "
          "shared-memory backing")
        .in_phase("shared-memory-full")
        .as(Role::Context),
    block(K::PmixError, "PMIx_Init failed for the following reason: {line}").about("no-pmi"),
    block(K::PmixError, "No PMIx server was reachable, but a PMI1/2 was detected")
        .about("no-pmix-but"),
    block(K::PmixError, "appears to have been direct launched using \"{detail}\""),
    line(K::PmixError, "OPAL ERROR: Unreachable in file").host_from_line(),
    block(K::PmixError, "The call to pmix_init_server() failed").about("pmix-failed"),

    // Launch-time resource limits; PRRTE v3 calls these topics but lacks them, so they are
    // only seen through "Sorry! You were supposed to get help about".
    topic_only(K::OutOfResources, "sys-limit-pipe"),
    topic_only(K::OutOfResources, "sys-limit-children"),
    topic_only(K::OutOfResources, "sys-limit-files"),
    topic_only(K::OutOfResources, "sys-limit-sockets"),
    topic_only(K::OutOfResources, "pipe-setup-failure"),
};

}  // namespace

PatternTable common_patterns() {
  return {Runtime::Unknown, kCommonRows};
}

}  // namespace mpilaunch::launcher
