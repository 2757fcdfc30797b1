// One literal snippet per phrase-table row family: the kind and fields it must yield. The
// texts are the runtimes' own (see /work/shared/reference), in the layouts they print.

#include <doctest/doctest.h>

#include <string>

#include "launcher/diagnose/explain.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {

const std::string kPatternDash(74, '-');

std::string banner(const std::string& body) {
  return kPatternDash + "\n" + body + "\n" + kPatternDash + "\n";
}

struct Row {
  std::string log;
  ErrorKind kind;
  std::string host = "";
  int rank = -1;
  int exit_code = -1;
  int signal = -1;
  std::string executable = "";
  std::string phase = "";
  std::string detail = "";
  std::string runtime = "";
};

void check(const Row& r, std::optional<int> rc = 1) {
  CAPTURE(r.log);
  const Explanation x = explain_text(r.log, rc);
  REQUIRE(x.error);
  const Error& e = *x.error;
  CHECK(kind_name(e.kind) == kind_name(r.kind));
  CHECK(e.host == r.host);
  CHECK(e.rank.value_or(-1) == r.rank);
  CHECK(e.exit_code.value_or(-1) == r.exit_code);
  CHECK(e.signal.value_or(-1) == r.signal);
  CHECK(e.executable == r.executable);
  CHECK(e.phase == r.phase);
  CHECK(e.detail == r.detail);
  if (!r.runtime.empty()) CHECK(x.runtime == r.runtime);
}

}  // namespace

TEST_CASE("patterns: ORTE help texts") {
  using K = ErrorKind;
  const Row rows[] = {
      {banner("mpiexec has detected an attempt to run as root.\nRunning as root is *strongly*"),
       K::RunAsRootRefused, "", -1, 1},
      {"mpirun: Error: unknown option \"--np\"\nType 'mpirun --help' for usage.\n", K::BadOption,
       "", -1, -1, -1, "", "", "--np", "orte-4"},
      {banner("There are not enough slots available in the system to satisfy the 4\nslots that "
              "were requested by the application:\n\n  python\n"),
       K::NotEnoughSlots, "", -1, 1, -1, "python", "", "4"},
      {banner("mpirun was unable to find the specified executable file, and therefore\ndid not "
              "launch the job.  This error was first reported for process\nrank 2; it may have "
              "occurred\n\nNode:       node7\nExecutable: ./a.out"),
       K::ExecutableNotFound, "node7", 2, -1, -1, "./a.out"},
      {banner("mpirun detected that one or more processes exited with non-zero status, thus "
              "causing\nthe job to be terminated. The first process to do so was:\n\n  Process "
              "name: [[57903,1],4]\n  Exit code:    12"),
       K::RankExitNonzero, "", 4, 12, -1, "", "", "", "orte-4"},
      {banner("mpirun noticed that process rank 4 with PID 8669 on node host07 exited on signal "
              "11 (Segmentation fault)."),
       K::RankSignaled, "host07", 4, 139, 11},
      {banner("MPI_ABORT was invoked on rank 3 in communicator MPI_COMM_WORLD\nwith errorcode "
              "42.\n\nNOTE: invoking MPI_ABORT"),
       K::RankCalledAbort, "", 3, 42, -1, "", "", "", "orte-4"},
      {banner("mpirun has exited due to process rank 0 with PID 0 on\nnode ci-runner exiting "
              "improperly. There are three reasons"),
       K::RankNoFinalize, "ci-runner", 0},
      {banner("Open RTE detected a parse error in the hostfile:\n    hosts.txt\nIt occured on "
              "line number 3 on token 2:\n    slots"),
       K::HostfileError, "", -1, -1, -1, "", "", "hosts.txt:3"},
      {banner("The value of the MCA parameter \"plm_rsh_agent\" was set to a path\nthat could not "
              "be found:\n\n  plm_rsh_agent: ssh : rsh"),
       K::AgentStartFailed, "", -1, -1, -1, "", "exec", "ssh : rsh"},
      {banner("The user-provided time limit for job execution has been reached:\n\n  Timeout: 30 "
              "seconds"),
       K::Timeout, "", -1, -1, -1, "", "job", "30s"},
      {banner("ORTE has lost communication with a remote daemon.\n\n  HNP daemon   : [[1,0],0] on "
              "node a\n  Remote daemon: [[1,0],3] on node gpu-4"),
       K::AgentLost, "gpu-4"},
  };
  for (const Row& r : rows) check(r);
}

TEST_CASE("patterns: PRRTE help texts, re-flowed") {
  using K = ErrorKind;
  const Row rows[] = {
      {"prterun has detected an attempt to run as root.\n\nYou can override\n" + kPatternDash +
           "\n",
       K::RunAsRootRefused, "", -1, 1, -1, "", "", "", "prrte-5"},
      {banner("An unrecognized option was included on the prterun command line:\n\n  Option: "
              "--bogus\n\nPlease use"),
       K::BadOption, "", -1, -1, -1, "", "", "--bogus", "prrte-5"},
      {banner("prterun detected that one or more processes exited with non-zero status,\nthus "
              "causing the job to be terminated. The first process to do so was:\n\n   Process "
              "name: [prterun-host1-4242@1,7]\n   Exit code:    2"),
       K::RankExitNonzero, "", 7, 2, -1, "", "", "", "prrte-5"},
      {std::string(60, '-') +
           "\nA daemon failed to report back after being spawned. This "
           "could\n\n  Local host:    a\n  Remote host:   node-9\n  Daemon "
           "exit status: 127\n" +
           std::string(60, '-') + "\n",
       K::AgentStartFailed, "node-9", -1, 127, -1, "", "exec"},
      {banner("PRTE was unable to open the hostfile:\n\n   /etc/h\n\nCheck to make sure"),
       K::HostfileError, "", -1, -1, -1, "", "read", "/etc/h", "prrte-5"},
      {banner("Sorry!  You were supposed to get help about:\n    prun:sys-limit-children\nBut I "
              "couldn't find that topic\nFilename: help-prun.txt\nTopic: prun:sys-limit-children"),
       K::OutOfResources},
  };
  for (const Row& r : rows) check(r);
}

TEST_CASE("patterns: Hydra and MPICH lines") {
  using K = ErrorKind;
  const Row rows[] = {
      {"[proxy:0:0@n1] HYDU_create_process (utils/launch/launch.c:73): execvp error on file "
       "./x (No such file or directory)\n",
       K::ExecutableNotFound, "n1", -1, -1, -1, "./x", "", "", "hydra"},
      {"[proxy:0:0@n1] HYDU_create_process (launch.c:73): execvp error on file ./x (Exec format "
       "error)\n",
       K::ExecutableNotExecutable, "n1", -1, -1, -1, "./x", "", "Exec format error"},
      {"[mpiexec@n0] HYDU_sock_connect (utils/sock/sock.c:145): unable to get host address for "
       "ghost (1)\n",
       K::UnknownHost, "ghost"},
      {"[proxy:0:1@n2] main (pm/pmiserv/pmip.c:209): unable to connect to server n0 at port "
       "4242 (check for firewalls!)\n",
       K::AgentStartFailed, "n0", -1, -1, -1, "", "handshake"},
      {"Abort(1) on node 5 (rank 5 in comm 0): application called MPI_Abort(MPI_COMM_WORLD, 1) "
       "- process 5\n",
       K::RankCalledAbort, "", 5, 1, -1, "", "", "", "hydra"},
      {std::string(83, '=') +
           "\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   RANK 2 PID 77 RUNNING "
           "AT c3\n=   KILLED BY SIGNAL: 9 (Killed)\n" +
           std::string(83, '=') + "\n",
       K::RankSignaled, "c3", 2, 137, 9},
      {std::string(83, '=') +
           "\n=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\n=   PID 77 RUNNING AT "
           "c3\n=   EXIT CODE: 139\n" +
           std::string(83, '=') + "\n",
       K::RankSignaled, "c3", -1, 139, 11},
      {"[mpiexec@vm] Exit codes: [vm] 0,0,512\n", K::RankExitNonzero, "", -1, 2},
  };
  for (const Row& r : rows) check(r);
}

TEST_CASE("patterns: ssh and shell lines before a daemon banner are one event") {
  using K = ErrorKind;
  const std::string daemons =
      banner("ORTE was unable to reliably start one or more daemons.\nThis usually is caused by:");
  const Row rows[] = {
      {"ssh: Could not resolve hostname w-0.svc: Name or service not known\n" + daemons,
       K::UnknownHost, "w-0.svc"},
      {"ssh: connect to host 10.0.0.5 port 22: Connection refused\n" + daemons, K::AgentStartFailed,
       "10.0.0.5", -1, -1, -1, "", "connect"},
      {"root@w-1: Permission denied (publickey,password).\n" + daemons, K::AgentStartFailed, "", -1,
       -1, -1, "", "auth"},
      {"Host key verification failed.\n" + daemons, K::AgentStartFailed, "", -1, -1, -1, "",
       "hostkey"},
      {"bash: orted: command not found\n" + daemons, K::AgentStartFailed, "", -1, -1, -1, "",
       "exec"},
  };
  for (const Row& r : rows) {
    check(r);
    CHECK(explain_text(r.log, 1).secondary.empty());
  }
}
