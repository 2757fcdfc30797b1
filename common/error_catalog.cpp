#include "common/error_catalog.hpp"

#include "common/text_format.hpp"

namespace mpilaunch {
namespace {

// " (rank 3 on node-b)", " (on node-b)" or "": where a launch-time failure happened.
std::string where(const Error& e) {
  if (e.rank && !e.host.empty()) return mpilaunch::format(" (rank {} on {})", *e.rank, e.host);
  if (e.rank) return mpilaunch::format(" (rank {})", *e.rank);
  if (!e.host.empty()) return mpilaunch::format(" (on {})", e.host);
  return "";
}

// "rank 3 on node-b", "a process on node-b" or "a process": the subject of a rank's sentence.
std::string who(const Error& e) {
  std::string s = e.rank ? mpilaunch::format("rank {}", *e.rank) : std::string("a process");
  if (!e.host.empty()) s += mpilaunch::format(" on {}", e.host);
  return s;
}

std::string signal_text(int signal) {
  return mpilaunch::format("signal {} ({})", signal, signal_name(signal));
}

std::string agent_phase_hint(const std::string& phase) {
  if (phase == "resolve")
    return "the host name does not resolve: fix DNS or the hostfile, or wait for the host "
           "(--wait-for-hosts)";
  if (phase == "connect")
    return "nothing accepted the connection: check that sshd runs on that host and port and that "
           "no firewall blocks it";
  if (phase == "libssh")
    return "mpilaunch could not load libssh, which it needs for ssh hosts: install it (Debian: "
           "apt-get install libssh-4) or point MPILAUNCH_LIBSSH at it; a job on this machine "
           "alone needs no ssh (--launcher=local)";
  if (phase == "auth")
    return "ssh authentication was refused: check the user, the key (IdentityFile or ssh-agent) "
           "and the modes of ~/.ssh on that host";
  if (phase == "hostkey")
    return "the host key is unknown or changed: verify the fingerprint, then update known_hosts "
           "(ssh-keyscan, or ssh-keygen -R HOST)";
  if (phase == "exec")
    return "the agent or daemon could not be started there: install it on that host "
           "(mpilaunch-agent, orted, prted or hydra_pmi_proxy) or pass its path (--agent-path, "
           "--prefix), and check the path of the remote shell (plm_rsh_agent); mpilaunch copies "
           "its own agent over ssh unless --deploy-agent=never";
  if (phase == "deploy")
    return "copying the agent to that host over the ssh session failed (see detail): fix the "
           "cause there, or install mpilaunch-agent on that host and pass --agent-path";
  if (phase == "handshake")
    return "the agent started but never said hello: check the remote shell's startup files "
           "for commands that read stdin, and the agent's stderr above";
  if (phase == "version")
    return "the agent on that host is another version: install the same mpilaunch version on "
           "every host, or let mpilaunch copy its own there (--deploy-agent=auto, the default)";
  if (phase == "pmix")
    return "libpmix does not start a server on that host: install the PMIx 4 library the agent "
           "was built with (and its plugins, e.g. libpmix2 on Debian), or set PMIX_MCA_* to work "
           "around the failing component";
  if (phase == "tmpdir")
    return "the job's temp dir cannot be created there: free space or fix the modes of /dev/shm "
           "or $TMPDIR, or point MPILAUNCH_TMPDIR at a writable local directory";
  if (phase == "session-dir")
    return "the runtime could not make its own session directory: with PMIX_ERR_EXISTS, "
           "$TMPDIR (else /tmp) already holds prterun.HOST.PID.UID for this prterun's process id, "
           "left by an earlier prterun that was killed; remove the prterun.* directories of "
           "prteruns no longer running and run again (Open MPI 5.0.7 stops on it, later PRRTE "
           "releases reuse it); otherwise $TMPDIR must be writable and have room";
  if (phase == "clock")
    return "that host's clock is off: run NTP or chrony (chronyc tracking) so that event and "
           "output timestamps line up";
  return "see the evidence lines for the cause";
}

}  // namespace

std::string message(const Error& e) {
  const std::string at = where(e);
  switch (e.kind) {
    case ErrorKind::RunAsRootRefused:
      return "the job was refused because it would run as root";
    case ErrorKind::NotEnoughSlots:
      return e.detail.empty() ? "there are not enough slots for the requested processes"
                              : mpilaunch::format("there are not enough slots: {}", e.detail);
    case ErrorKind::ExecutableNotFound:
      return mpilaunch::format("the executable {}was not found{}{}",
                               e.executable.empty() ? "" : "'" + e.executable + "' ", at,
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::ExecutableNotExecutable:
      return mpilaunch::format("the executable {}could not be executed{}{}",
                               e.executable.empty() ? "" : "'" + e.executable + "' ", at,
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::WdirError:
      return mpilaunch::format("the working directory could not be used{}{}", at,
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::AgentStartFailed:
      return mpilaunch::format("the agent on {} could not be started{}{}",
                               e.host.empty() ? "a host" : e.host,
                               e.phase.empty() ? "" : " (phase " + e.phase + ")",
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::AgentLost:
      return mpilaunch::format("the connection to the agent on {} was lost{}",
                               e.host.empty() ? "a host" : e.host,
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::UnknownHost:
      return mpilaunch::format("the host {} is unknown{}",
                               e.host.empty() ? "(unnamed)" : "'" + e.host + "'",
                               e.phase == "spawn" && !e.detail.empty() ? ": " + e.detail : "");
    case ErrorKind::HostfileError:
      return mpilaunch::format("the host list is invalid{}",
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::RankExitNonzero:
      return e.exit_code ? mpilaunch::format("{} exited with code {}", who(e), *e.exit_code)
                         : mpilaunch::format("{} exited with a non-zero code", who(e));
    case ErrorKind::RankSignaled:
      return mpilaunch::format("{} was killed by {}", who(e),
                               e.signal ? signal_text(*e.signal) : "a signal");
    case ErrorKind::RankCalledAbort:
      return mpilaunch::format("{} called MPI_Abort with error code {}", who(e),
                               e.exit_code ? std::to_string(*e.exit_code) : "(unknown)");
    case ErrorKind::RankNoFinalize:
      return mpilaunch::format("{} exited without calling MPI_Finalize", who(e));
    case ErrorKind::MpiInitFailed:
      return mpilaunch::format("MPI_Init failed{}{}", at, e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::PmixError:
      return mpilaunch::format("the PMIx wire-up failed{}{}", at,
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::ComponentNotFound:
      return mpilaunch::format("a requested MCA component was not found{}{}", at,
                               e.detail.empty() ? "" : " (" + e.detail + ")");
    case ErrorKind::UnsupportedMpiCall:
      return mpilaunch::format("{} called {}, which mpilaunch does not serve", who(e),
                               e.detail.empty() ? "an MPI function" : e.detail);
    case ErrorKind::BadOption:
      // A spawn's refusal: the user's command line was fine, a running program's
      // MPI_Comm_spawn (its info keys) asked for what is not served.
      if (e.phase == "spawn")
        return mpilaunch::format("a spawn was refused{}", e.detail.empty() ? "" : ": " + e.detail);
      // The agent could not bind a rank of the job to the CPUs the placement gave it.
      if (e.phase == "bind")
        return mpilaunch::format("a rank could not be bound{}{}", at,
                                 e.detail.empty() ? "" : ": " + e.detail);
      return mpilaunch::format("invalid command line{}", e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::Timeout:
      if (e.phase == "slurm")
        return mpilaunch::format("the Slurm allocation's time limit was reached{}", at);
      return mpilaunch::format("the {}time limit was reached{}",
                               e.phase.empty() ? "" : e.phase + " ",
                               e.detail.empty() ? "" : " (" + e.detail + ")");
    case ErrorKind::OutOfResources:
      return mpilaunch::format("a system resource ran out{}{}", at,
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::ProtocolMismatch:
      return mpilaunch::format("the agent{} speaks another protocol version{}", at,
                               e.detail.empty() ? "" : " (" + e.detail + ")");
    case ErrorKind::MalformedFrame:
      return mpilaunch::format("a malformed message was received{}{}", at,
                               e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::Interrupted:
      return mpilaunch::format("the job was interrupted{}",
                               e.signal ? " by " + signal_text(*e.signal) : std::string());
    case ErrorKind::OutputError:
      if (e.signal)
        return mpilaunch::format("the reader of mpilaunch's output went away{}",
                                 e.detail.empty() ? "" : " (" + e.detail + ")");
      return mpilaunch::format(
          "{}'s output could not be written{}",
          e.rank ? mpilaunch::format("rank {}", *e.rank) : std::string("a rank"),
          e.detail.empty() ? "" : ": " + e.detail);
    case ErrorKind::Unknown:
      return e.detail.empty() ? "the job failed for an unrecognised reason" : e.detail;
  }
  return "error";
}

std::string hint(const Error& e) {
  switch (e.kind) {
    case ErrorKind::RunAsRootRefused:
      return "pass --allow-run-as-root, or set both OMPI_ALLOW_RUN_AS_ROOT=1 and "
             "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; better, run as a non-root user";
    case ErrorKind::NotEnoughSlots:
      if (e.phase == "spawn")
        return "spawn fewer processes (MPI_Comm_spawn's maxprocs), name more of the job's nodes in "
               "its info keys host/hostfile/add-host, or start the job with more slots (host:N "
               "or slots=N) or --oversubscribe";
      return "ask for fewer processes, give hosts more slots (host:N or slots=N), or pass "
             "--oversubscribe";
    case ErrorKind::ExecutableNotFound:
      return "check the program path and PATH on that node; a misspelled option may have been "
             "taken as the program";
    case ErrorKind::ExecutableNotExecutable:
      return "check that the file exists on that node (Open MPI reports a missing path this way "
             "too), then make it executable (chmod +x), and check for a noexec mount, the right "
             "architecture and the #! interpreter";
    case ErrorKind::WdirError:
      return "create the directory on every node (or use a shared volume), or drop --wdir";
    case ErrorKind::AgentStartFailed:
      return agent_phase_hint(e.phase);
    case ErrorKind::AgentLost:
      if (e.phase == "teardown")
        return "the agent is stopped (SIGSTOP, a debugger) or its host is frozen: its link was "
               "closed so the job could end; a local agent was killed with its ranks, a remote "
               "one ends when it next runs and finds the link gone (check that host)";
      if (e.signal && is_crash_signal(*e.signal))
        return "the agent crashed; the lines it printed just before say where (libpmix's own "
               "when its PMIx server failed): 'PLEASE set NS_DATA_SEG_SIZE' means one rank's "
               "PMIx data outgrew a shared-store segment: raise NS_DATA_SEG_SIZE (bytes) or set "
               "PMIX_MCA_gds=hash";
      return "the node or its agent died (killed, out of memory, rebooted) or the network "
             "dropped; check that host's logs";
    case ErrorKind::UnknownHost:
      if (e.phase == "spawn")
        return "MPI_Comm_spawn's info keys host, hostfile and add-host may name only nodes of "
               "the job: name one of them, or list the host at launch (-H, --hostfile) so that "
               "the job has it";
      return "fix the host name in -H or the hostfile; in Kubernetes a worker's name resolves "
             "only once its pod is up (--wait-for-hosts)";
    case ErrorKind::HostfileError:
      if (e.phase == "read")
        return "the host file itself could not be read: check its path and permissions on the "
               "machine that reads it; a host file is a text file of host names, one per line "
               "('host slots=N [max_slots=M]' or 'host:N')";
      return "fix the line named above; the syntax is 'host slots=N [max_slots=M]' or 'host:N'";
    case ErrorKind::RankExitNonzero:
      return "the cause is in that rank's own output above";
    case ErrorKind::RankSignaled:
      if (e.signal && *e.signal == 9)
        return "SIGKILL usually means a memory limit or the OOM killer (check dmesg)";
      if (e.signal && is_crash_signal(*e.signal))
        return "an application fault: run that rank under a debugger or enable core dumps "
               "(ulimit -c unlimited)";
      return "the process was killed by a signal sent from outside the job";
    case ErrorKind::RankCalledAbort:
      return "the program chose to stop; its output says why";
    case ErrorKind::RankNoFinalize:
      return "call MPI_Finalize on every exit path of the program";
    case ErrorKind::MpiInitFailed:
      if (e.phase == "shared-memory")
        return "the ranks could not create their shared-memory files in the job's directory, "
               "which their agent made under /dev/shm: a rank that runs in a chroot, a "
               "container or another mount namespace must see the agent's /dev/shm (bind-mount "
               "it there, docs/container.md)";
      if (e.phase == "shared-memory-full")
        return "/dev/shm has no room for the ranks' shared-memory segments: make it larger "
               "(Docker's default is 64 MiB: --shm-size; Kubernetes: an emptyDir volume with "
               "medium Memory), or point MPILAUNCH_TMPDIR at a larger tmpfs";
      return "the text above ('--> Returned' or the error stack) names the failing layer; a "
             "small /dev/shm (Docker's 64 MiB) is a common suspect";
    case ErrorKind::PmixError:
      return "start every rank through the launcher, and use one MPI's launcher with the same "
             "MPI's library";
    case ErrorKind::ComponentNotFound:
      return "check the --mca / OMPI_MCA_* settings: they are often meant for another Open MPI "
             "version";
    case ErrorKind::UnsupportedMpiCall:
      return "mpilaunch serves MPI_Comm_spawn(_multiple), MPI_Comm_connect/accept and "
             "MPI_Publish_name/Lookup_name for Open MPI and MPICH ranks; not this request (e.g. "
             "PMI-1's one-line cmd=spawn, or a connect to another mpilaunch run) "
             "(docs/dynamic-processes.md): run this program with mpirun, or start every process "
             "at launch (MPMD, a static worker pool)";
    case ErrorKind::BadOption:
      if (e.phase == "spawn")
        return "the program's MPI_Comm_spawn (or _spawn_multiple) asked for it, through the info "
               "key or the job setting named above: change that call's info, or the job's "
               "command line where it is named; the spawn's info keys served are in "
               "docs/dynamic-processes.md";
      if (e.phase == "bind")
        return "the node does not have or allow the CPUs its topology report named (a saved "
               "topology in HWLOC_XMLFILE with HWLOC_THISSYSTEM=1 that is another machine's, or a "
               "CPU taken away since): run with --bind-to none, or fix the topology";
      return "see 'mpilaunch --help' for the accepted spellings";
    case ErrorKind::Timeout:
      if (e.phase == "slurm")
        return "the Slurm allocation reached its time limit: ask for more (salloc/sbatch "
               "--time=...), or checkpoint and resubmit";
      if (e.phase == "wire-up")
        return "that rank is stuck or slow before MPI_Init (or a peer died mid-fence); look at its "
               "output, or raise --wireup-timeout";
      if (e.phase == "teardown")
        return "the teardown stopped waiting for that process; the job's first error (job-failed "
               "in the events file) says why the job ended";
      return "raise the limit (--timeout) or find where the job hangs (--report-state-on-timeout "
             "shows who was still running)";
    case ErrorKind::OutOfResources:
      return "raise the limits (ulimit -n / -u) or the container's pids and memory limits";
    case ErrorKind::ProtocolMismatch:
      return "install the same mpilaunch version on every host";
    case ErrorKind::MalformedFrame:
      return "something else wrote to the agent's channel; this is a bug if it repeats, please "
             "report it with the events file";
    case ErrorKind::Interrupted:
      return "the job was stopped from outside; nothing to fix in the program";
    case ErrorKind::OutputError:
      if (e.signal)
        return "the pipe mpilaunch writes to was closed (| head, a log collector that quit): the "
               "job ends as a Unix tool does; read the output to its end, or send it to a file";
      return "free space on that file system (df), check the directory's permissions and "
             "quotas, or choose another --output-filename directory; the events file says "
             "which rank lost how many bytes (output-lost)";
    case ErrorKind::Unknown:
      return "read the evidence lines; if the log is from a supported runtime, please report it "
             "so it can be recognised";
  }
  return "";
}

std::string render_human(const Error& e) {
  std::string out = mpilaunch::format("mpilaunch: error: {}\n", message(e));
  out += mpilaunch::format("  kind:      {}\n", kind_name(e.kind));
  if (!e.host.empty()) out += mpilaunch::format("  node:      {}\n", e.host);
  if (e.rank) out += mpilaunch::format("  rank:      {}\n", *e.rank);
  if (e.pid) out += mpilaunch::format("  pid:       {}\n", *e.pid);
  if (e.exit_code) out += mpilaunch::format("  exit code: {}\n", *e.exit_code);
  if (e.signal)
    out += mpilaunch::format("  signal:    {} ({})\n", *e.signal, signal_name(*e.signal));
  if (!e.phase.empty()) out += mpilaunch::format("  phase:     {}\n", e.phase);
  if (!e.executable.empty()) out += mpilaunch::format("  program:   {}\n", e.executable);
  // The rank kinds' messages leave the detail out (a spawned process's job, say).
  const bool rank_kind =
      e.kind == ErrorKind::RankExitNonzero || e.kind == ErrorKind::RankSignaled ||
      e.kind == ErrorKind::RankCalledAbort || e.kind == ErrorKind::RankNoFinalize;
  if (rank_kind && !e.detail.empty()) out += mpilaunch::format("  detail:    {}\n", e.detail);
  if (e.count && *e.count > 1) out += mpilaunch::format("  reported:  {} times\n", *e.count);
  out += mpilaunch::format("  hint:      {}\n", hint(e));
  return out;
}

std::string render_framed(const Error& e) {
  const std::string frame(74, '-');
  return frame + "\n" + render_human(e) + frame + "\n";
}

namespace {

std::string produced_by(std::string_view runtime, std::optional<int> rc) {
  std::string out = runtime == "unknown" ? "an unrecognised runtime" : std::string(runtime);
  if (rc) out += mpilaunch::format(", exit status {}", *rc);
  return out;
}

}  // namespace

std::string render_explanation(const Error& e, std::string_view runtime, std::optional<int> rc,
                               const std::vector<Error>& secondary) {
  std::string out = render_human(e);
  out += mpilaunch::format("  log from:  {}\n", produced_by(runtime, rc));
  std::string_view label = "  evidence: ";
  for (const std::string& line : e.evidence) {
    out += mpilaunch::format("{} {}\n", label, line);
    label = "            ";
  }
  label = "  also:     ";
  for (const Error& s : secondary) {
    out += mpilaunch::format("{} {} [{}]\n", label, message(s), kind_name(s.kind));
    label = "            ";
  }
  return out;
}

std::string render_no_error(std::string_view runtime, std::optional<int> rc) {
  return mpilaunch::format("mpilaunch: no error found in the log ({})\n", produced_by(runtime, rc));
}

}  // namespace mpilaunch
