// MPICH programs through the agent's PMI server (docs/pmi.md): --pmi and its automatic choice,
// node topology on virtual nodes as each MPI library sees it, restarts, and rank-side protocol
// errors answered instead of crashing the agent.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <regex>

#include "tests/e2e/support/checks.hpp"

namespace mpilaunch::e2e {
namespace {

// The "interface:" line of --dry-run for `args`.
std::string interface_line(const std::vector<std::string>& args) {
  Job job;
  std::vector<std::string> argv = {"--dry-run"};
  argv.insert(argv.end(), args.begin(), args.end());
  const Outcome o = job.launch(argv);
  CHECK_MESSAGE(o.status() == 0, o.summary());
  for (const std::string& line : lines_of(o.out))
    if (line.starts_with("interface:")) return line;
  FAIL_CHECK("no interface line in:\n", o.out);
  return {};
}

// Runs `nodes` on node1:1,node2:2,node3:1 and checks that ranks 1 and 2 and no others share a
// node, as the MPI library itself computes it (MPI_COMM_TYPE_SHARED).
void check_virtual_node_topology(const std::string& program) {
  Job job;
  const Outcome o =
      job.launch({"--launcher=local", "-H", "node1:1,node2:2,node3:1", "-n", "4", app(program)});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  static const std::regex kLine(R"(nodes rank (\d) leader (\d) local (\d))");
  std::map<int, std::pair<int, int>> seen;
  for (const std::string& line : lines_of(o.out)) {
    std::smatch m;
    if (std::regex_match(line, m, kLine))
      seen[std::stoi(m[1])] = {std::stoi(m[2]), std::stoi(m[3])};
    else
      FAIL_CHECK("unexpected line: ", line);
  }
  const std::map<int, std::pair<int, int>> want = {
      {0, {0, 1}}, {1, {1, 2}}, {2, {1, 2}}, {3, {3, 1}}};
  CHECK_MESSAGE(seen == want, o.out);
  check_nothing_left(job, o);
}

}  // namespace

TEST_CASE("--pmi=auto reads the program's MPI library, and --dry-run says so") {
  const std::string mpich = interface_line({"-n", "2", app("hello_mpich")});
  CHECK_MESSAGE(mpich.starts_with("interface:  PMI (auto: "), mpich);
  CHECK_MESSAGE(mpich.find("libmpich.so") != std::string::npos, mpich);
  const std::string ompi = interface_line({"-n", "2", app("hello")});
  CHECK_MESSAGE(ompi.starts_with("interface:  PMIx (auto: "), ompi);
  CHECK_MESSAGE(ompi.find("libmpi.so.40") != std::string::npos, ompi);
  const std::string script = interface_line({"-n", "1", "sh", "-c", "true"});
  CHECK_MESSAGE(script.starts_with("interface:  PMIx and PMI (auto: "), script);
  const std::string forced = interface_line({"--pmi", "pmix", "-n", "2", app("hello_mpich")});
  CHECK_MESSAGE(forced == "interface:  PMIx (--pmi=pmix)", forced);
  const std::string pmi2 = interface_line({"--pmi=pmi2", "-n", "2", app("hello")});
  CHECK_MESSAGE(pmi2.starts_with("interface:  PMI (--pmi=pmi2"), pmi2);
}

TEST_CASE("--pmi with an unknown value is a bad option that names the choices") {
  Job job;
  const Outcome o = job.launch({"--pmi=pmi3", "-n", "1", app("hello")});
  check_error_block(o, "bad-option", 64);
  CHECK_MESSAGE(o.err.find("--pmi=pmi3: choose 'auto', 'pmix'") != std::string::npos, o.err);
}

TEST_CASE("an Open MPI program given PMI only fails in PMIx, and the error names --pmi=pmix") {
  Job job;
  const Outcome o = job.launch({"--pmi=pmi1", "-n", "2", app("hello")});
  check_error_block(o, "pmix-error", 70);  // EX_SOFTWARE: the wire-up failed
  CHECK_MESSAGE(o.err.find("given PMI only (--pmi=pmi1)") != std::string::npos, o.err);
  CHECK_MESSAGE(o.err.find("run it with --pmi=pmix") != std::string::npos, o.err);
  check_nothing_left(job, o);
}

TEST_CASE("Open MPI ranks see their whole world inside a Slurm allocation outside a job step") {
  // What salloc leaves for --launcher=local or ssh: SLURM_NODELIST and no SLURM_STEP_ID. Open
  // MPI 4.1's schizo/slurm then declared each rank a "managed singleton" (rank 0 of 1, exit 0).
  Job job;
  const Outcome o = job.launch({"--launcher=local", "-x", "SLURM_NODELIST=localhost", "-x",
                                "SLURM_JOBID=7", "-n", "2", app("hello")});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  CHECK_MESSAGE(count_of(o.out, " of 2 ") == 2, o.out);
  CHECK_MESSAGE(count_of(o.out, "sum 1 ok") == 2, o.out);
  check_nothing_left(job, o);
}

TEST_CASE("ranks of an MPI program that come up as singletons fail the job as a wire-up error") {
  // A way to make each rank of `hello` a singleton that ends 0, per Open MPI generation: 4.1's
  // schizo/slurm let back in by the user, 5 given a PMI-1 socket it does not use.
  const std::vector<std::string> singleton =
      MPILAUNCH_E2E_OMPI_MAJOR >= 5
          ? std::vector<std::string>{"--pmi=pmi1"}
          : std::vector<std::string>{
                "-x",   "SLURM_NODELIST=localhost", "-x", "SLURM_JOBID=7", "--mca", "schizo",
                "^orte"};
  std::vector<std::string> args = {"--launcher=local"};
  args.insert(args.end(), singleton.begin(), singleton.end());
  args.insert(args.end(), {"-n", "2", app("hello")});
  Job job;
  const Outcome o = job.launch(args);
  check_error_block(o, "pmix-error", 70);
  CHECK_MESSAGE(o.err.find("as a singleton (rank 0 of 1, not of 2)") != std::string::npos, o.err);
  check_nothing_left(job, o);
}

TEST_CASE("a wrapper script gets both interfaces: Open MPI and MPICH programs behind sh run") {
  for (const std::string program : {"hello", "hello_mpich"}) {
    CAPTURE(program);
    Job job;
    const Outcome o = job.launch({"-n", "2", "sh", "-c", "exec \"$0\"", app(program)});
    CHECK_MESSAGE(o.status() == 0, o.summary());
    CHECK_MESSAGE(count_of(o.out, " of 2 ") == 2, o.out);
    CHECK_MESSAGE(count_of(o.out, "sum 1 ok") == 2, o.out);
    const auto events = check_events(job, 0);
    const auto chosen = first_event(events, "interface");
    REQUIRE(chosen.has_value());
    CHECK(chosen->value("interface", "") == "PMIx and PMI");
    check_nothing_left(job, o);
  }
}

TEST_CASE("virtual nodes are separate nodes to Open MPI (PMIx) and to MPICH (PMI mapping)") {
  check_virtual_node_topology("nodes");
  check_virtual_node_topology("nodes_mpich");
}

TEST_CASE("MPICH restart: every attempt gets a fresh PMI namespace on warm agents") {
  Job job;
  const Outcome o = job.launch({"-n", "2", "--max-restarts", "3", "--restart-backoff", "0",
                                app("flaky_mpich"), "3", "1", "3"});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  for (int attempt = 1; attempt <= 3; ++attempt)
    CHECK_MESSAGE(o.out.find("attempt " + std::to_string(attempt) + " rank 1") != std::string::npos,
                  o.out);
  const auto events = check_events(job, 0);
  CHECK(events_named(events, "attempt-failed").size() == 2);
  CHECK(events_named(events, "agent-up").size() == 1);
  check_nothing_left(job, o);
}

TEST_CASE("malformed PMI commands from a rank get an error reply; overlong input closes it") {
  Job job;
  // Speaks PMI by hand on PMI_FD: a line without '=', an unknown command, then a real one
  // (never init: a rank that starts PMI and exits without finalize is a failure).
  const std::string talk =
      "printf 'cmd=get key\\ncmd=frobnicate\\ncmd=get_maxes\\n' "
      ">&$PMI_FD; for i in 1 2 3; do read -r line <&$PMI_FD; echo \"reply: $line\"; done";
  const Outcome o = job.launch({"--pmi=pmi1", "-n", "1", "bash", "-c", talk});
  CHECK_MESSAGE(o.status() == 0, o.summary());
  const auto lines = lines_of(o.out);
  REQUIRE_MESSAGE(lines.size() == 3, o.out);
  CHECK(lines[0].starts_with("reply: cmd=error rc=-1 msg="));
  CHECK(lines[1] == "reply: cmd=frobnicate_result rc=-1 msg=unsupported command");
  CHECK(lines[2] == "reply: cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=1024");
  check_nothing_left(job, o);

  Job flood;
  const std::string overlong =
      "head -c 5000 /dev/zero | tr '\\0' a >&$PMI_FD; "
      "if read -r line <&$PMI_FD; then echo \"reply: $line\"; else echo closed; fi";
  const Outcome f = flood.launch({"--pmi=pmi1", "-n", "1", "bash", "-c", overlong});
  CHECK_MESSAGE(f.status() == 0, f.summary());
  CHECK_MESSAGE(f.out == "closed\n", f.out);
  CHECK_MESSAGE(f.err.find("PMI protocol error from rank 0: PMI-1 line longer than 1024 bytes") !=
                    std::string::npos,
                f.err);
  check_nothing_left(flood, f);
}

}  // namespace mpilaunch::e2e
