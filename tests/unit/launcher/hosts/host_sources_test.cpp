#include <doctest/doctest.h>

#include <map>
#include <span>
#include <string>
#include <vector>

#include "launcher/hosts/host_sources.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {

// A fake machine: environment variables and files, recording which files were read.
struct FakeSystem {
  std::map<std::string, std::string, std::less<>> env;
  std::map<std::string, std::string> files;
  std::vector<std::string> reads;

  EnvLookup lookup() {
    return [this](std::string_view name) -> std::optional<std::string> {
      const auto it = env.find(name);
      return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
  }
  FileReader reader() {
    return [this](const std::string& path) -> Result<std::string> {
      reads.push_back(path);
      const auto it = files.find(path);
      if (it == files.end())
        return Error{.kind = ErrorKind::HostfileError,
                     .phase = "read",
                     .detail = path + ": cannot be read: No such file or directory"};
      return it->second;
    };
  }
  Result<HostList> select(const HostRequest& request = {}) {
    return select_hosts(request, lookup(), reader());
  }
};

struct Case {
  const char* name;
  std::map<std::string, std::string, std::less<>> env;
  std::map<std::string, std::string> files;
  HostRequest request;
  std::vector<HostEntry> hosts;
  const char* source;
};

// Each case's hosts and their source, as select_hosts finds them on the case's fake machine.
void check_cases(std::span<const Case> cases) {
  for (const Case& c : cases) {
    INFO(c.name);
    FakeSystem system{.env = c.env, .files = c.files};
    const auto list = system.select(c.request);
    REQUIRE_MESSAGE(list.has_value(), list.error().detail);
    CHECK(list->hosts == c.hosts);
    CHECK(list->source == c.source);
  }
}

HostEntry given(const char* name, int slots) {
  return HostEntry{.name = name, .slots = slots, .slots_given = true};
}

}  // namespace

TEST_CASE("host sources: the command line, then resource managers in a fixed order") {
  const std::map<std::string, std::string, std::less<>> slurm = {{"SLURM_JOB_NODELIST", "n[1-2]"},
                                                                 {"SLURM_TASKS_PER_NODE", "2(x2)"}};
  const Case cases[] = {
      {"nothing: isolated mode", {}, {}, {}, {}, ""},
      {"-H", {}, {}, {.host_values = {"a:2", "b"}}, {given("a", 2), {.name = "b"}}, "-H a:2 -H b"},
      {"-H values merge",
       {},
       {},
       {.host_values = {"a", "a"}},
       {{.name = "a", .slots = 2}},
       "-H a -H a"},
      {"--hostfile",
       {},
       {{"h.txt", "a slots=2\nb\n"}},
       {.hostfile = "h.txt"},
       {given("a", 2), {.name = "b", .count_cores = true}},
       "hostfile h.txt"},
      {"-H without :N picks a line without slots=: one slot (mpirun 4.1.4)",
       {},
       {{"h.txt", "a\nb\n"}},
       {.host_values = {"b"}, .hostfile = "h.txt"},
       {{.name = "b"}},
       "-H b out of hostfile h.txt"},
      // mpirun 4.1.4 (measured): -H's slots, not the file's slots= or max_slots=.
      {"-H picks out of --hostfile, with its own slots",
       {},
       {{"h.txt", "a slots=2\nb slots=4 max_slots=8\n"}},
       {.host_values = {"b,a:1"}, .hostfile = "h.txt"},
       {{.name = "b"}, given("a", 1)},
       "-H b,a:1 out of hostfile h.txt"},
      {"-H naming a host twice out of --hostfile: two slots",
       {},
       {{"h.txt", "a slots=4\n"}},
       {.host_values = {"a,a"}, .hostfile = "h.txt"},
       {{.name = "a", .slots = 2}},
       "-H a,a out of hostfile h.txt"},
      // mpirun 4.1.4 (measured under Grid Engine): inside an allocation -H only picks among its
      // hosts, in the allocation's order, -H's slots capping the allocation's.
      {"-H narrows slurm's allocation",
       slurm,
       {},
       {.host_values = {"n2:5,n1"}},
       {given("n1", 1), given("n2", 2)},
       "slurm SLURM_JOB_NODELIST=n[1-2] SLURM_TASKS_PER_NODE=2(x2), narrowed by -H n2:5,n1"},
      // mpirun 4.1.4 (measured): Grid Engine's PE_HOSTFILE, when all four variables are set,
      // wins over Slurm's; a host's lines add up; the domain goes, an address stays whole.
      {"gridengine",
       {{"SGE_ROOT", "/sge"}, {"ARC", "lx-amd64"}, {"JOB_ID", "7"}, {"PE_HOSTFILE", "/pe"}},
       {{"/pe",
         "n1.cluster 2 all.q@n1.cluster UNDEFINED\nn2 1 all.q@n2 UNDEFINED\n"
         "n1 1 b.q@n1 UNDEFINED\n10.0.0.3 4 c.q@x UNDEFINED\n"}},
       {},
       {given("n1", 3), given("n2", 1), given("10.0.0.3", 4)},
       "gridengine PE_HOSTFILE=/pe"},
      {"gridengine beats slurm",
       [&] {
         auto env = slurm;
         env.insert({{"SGE_ROOT", "/sge"}, {"ARC", "x"}, {"JOB_ID", "7"}, {"PE_HOSTFILE", "/pe"}});
         return env;
       }(),
       {{"/pe", "n9 2"}},
       {},
       {given("n9", 2)},
       "gridengine PE_HOSTFILE=/pe"},
      {"PE_HOSTFILE without SGE_ROOT, ARC and JOB_ID is not Grid Engine's",
       {{"ARC", "x"}, {"JOB_ID", "7"}, {"PE_HOSTFILE", "/pe"}},
       {{"/pe", "n9 2\n"}},
       {},
       {},
       ""},
      // Open MPI's own default host file, when nothing else gives hosts (mpirun 4.1.4, measured);
      // Debian's, with comments only, leaves this machine alone.
      {"Open MPI's default host file",
       {},
       {{kOpenMpiDefaultHostfile, "# a comment\nlocalhost slots=3\n"}},
       {},
       {given("localhost", 3)},
       "hostfile /etc/openmpi/openmpi-default-hostfile"},
      {"Open MPI's default host file with comments only",
       {},
       {{kOpenMpiDefaultHostfile, "# This is the default hostfile for Open MPI.\n#\n"}},
       {},
       {},
       ""},
      {"slurm",
       slurm,
       {},
       {},
       {given("n1", 2), given("n2", 2)},
       "slurm SLURM_JOB_NODELIST=n[1-2] SLURM_TASKS_PER_NODE=2(x2)"},
      {"slurm, older names",
       {{"SLURM_NODELIST", "c[1-3]"}, {"SLURM_JOB_CPUS_PER_NODE", "4,8(x2)"}},
       {},
       {},
       {given("c1", 4), given("c2", 8), given("c3", 8)},
       "slurm SLURM_NODELIST=c[1-3] SLURM_JOB_CPUS_PER_NODE=4,8(x2)"},
      {"slurm without counts",
       {{"SLURM_JOB_NODELIST", "a,b"}},
       {},
       {},
       {given("a", 1), given("b", 1)},
       "slurm SLURM_JOB_NODELIST=a,b"},
      {"slurm beats pbs",
       {{"SLURM_JOB_NODELIST", "a"}, {"PBS_NODEFILE", "/pbs"}},
       {},
       {},
       {given("a", 1)},
       "slurm SLURM_JOB_NODELIST=a"},
      {"pbs: one line per slot",
       {{"PBS_NODEFILE", "/var/spool/pbs/aux/1"}},
       {{"/var/spool/pbs/aux/1", "a\na\nb\n"}},
       {},
       {{.name = "a", .slots = 2}, {.name = "b"}},
       "pbs PBS_NODEFILE=/var/spool/pbs/aux/1"},
      {"lsf pairs",
       {{"LSB_MCPU_HOSTS", "h1 2 h2 4 "}},
       {},
       {},
       {given("h1", 2), given("h2", 4)},
       "lsf LSB_MCPU_HOSTS=h1 2 h2 4 "},
      {"lsf host file",
       {{"LSB_DJOB_HOSTFILE", "/lsf/h"}},
       {{"/lsf/h", "h1\nh1\nh2\n"}},
       {},
       {{.name = "h1", .slots = 2}, {.name = "h2"}},
       "lsf LSB_DJOB_HOSTFILE=/lsf/h"},
      {"htcondor contact file, in procno order",
       {{"_CONDOR_PROCNO", "0"}, {"_CONDOR_NPROCS", "2"}, {"_CONDOR_SCRATCH_DIR", "/scratch"}},
       {{"/scratch/contact", "1 b 4445 alice /dir 1\n0 a 4444 alice /dir 1\n"}},
       {},
       {{.name = "a", .slots = 1, .slots_given = true, .user = "alice", .port = 4444},
        {.name = "b", .slots = 1, .slots_given = true, .user = "alice", .port = 4445}},
       "htcondor _CONDOR_NPROCS=2 contact file /scratch/contact"},
      {"kubeflow: Open MPI's default hostfile variable",
       {{"OMPI_MCA_orte_default_hostfile", "/etc/mpi/hostfile"}},
       {{"/etc/mpi/hostfile",
         "job-worker-0.job-worker slots=2\njob-worker-1.job-worker slots=2\n"}},
       {},
       {given("job-worker-0.job-worker", 2), given("job-worker-1.job-worker", 2)},
       "OMPI_MCA_orte_default_hostfile=/etc/mpi/hostfile"},
      // mpirun 4.1.4 ignores Open MPI 5's variable (measured): the mounted file, not /prte/h.
      {"kubeflow: Open MPI 5's PRTE_MCA_prte_default_hostfile is not read",
       {{"PRTE_MCA_prte_default_hostfile", "/prte/h"}},
       {{"/prte/h", "p0:2\n"}, {"/etc/mpi/hostfile", "w0:2\n"}},
       {},
       {given("w0", 2)},
       "hostfile /etc/mpi/hostfile"},
      {"kubeflow: the mounted hostfile alone",
       {},
       {{"/etc/mpi/hostfile", "w0:2\n"}},
       {},
       {given("w0", 2)},
       "hostfile /etc/mpi/hostfile"},
  };
  check_cases(cases);
}

TEST_CASE("host sources: -H and --hostfile never read a default host file") {
  FakeSystem system{.env = {{"OMPI_MCA_orte_default_hostfile", "/d"}},
                    .files = {{"h", "a\n"}, {"/d", "b\n"}, {"/etc/mpi/hostfile", "c\n"}}};
  REQUIRE(system.select({.hostfile = "h"}).has_value());
  CHECK(system.reads == std::vector<std::string>{"h"});
}

// mpirun 4.1.4 inside an allocation (measured under Grid Engine, PE_HOSTFILE "vm 2" and "node2
// 2"): -H and host files only pick among the allocation's hosts, which keep its order; a file's
// slots= count for nothing, -H's cap the allocation's; a host outside it is left out, none
// inside runs nothing; --default-hostfile is ignored; the universe stays the allocation's.
TEST_CASE("host sources: inside an allocation -H and host files narrow it") {
  const std::map<std::string, std::string, std::less<>> sge = {
      {"SGE_ROOT", "/sge"}, {"ARC", "x"}, {"JOB_ID", "7"}, {"PE_HOSTFILE", "/pe"}};
  const std::map<std::string, std::string> files = {
      {"/pe", "vm 2 q@vm UNDEFINED\nnode2 2 q@node2 UNDEFINED\n"},
      {"hf", "node2 slots=4\nvm slots=1\nnode3 slots=2\n"},
      {"hf3", "node3\n"}};
  const std::vector<HostEntry> allocation = {given("vm", 2), given("node2", 2)};
  struct Narrow {
    const char* name;
    HostRequest request;
    std::vector<HostEntry> hosts;
    std::vector<std::string> outside;
  };
  const Narrow cases[] = {
      {"a host file: the allocation's order and slots; node3 left out",
       {.hostfile = "hf"},
       {given("vm", 2), given("node2", 2)},
       {"node3"}},
      {"-H caps: vm:4 is 2, node2 once is 1",
       {.host_values = {"node2,vm:4"}},
       {given("vm", 2), given("node2", 1)},
       {}},
      {"-H naming a host twice: two slots", {.host_values = {"vm,vm"}}, {given("vm", 2)}, {}},
      {"-H picking out of a host file: -H's slots, capped",
       {.host_values = {"node2:3"}, .hostfile = "hf"},
       {given("node2", 2)},
       {}},
      {"localhost and this machine's name are the allocation's node",
       {.host_values = {"localhost:1", "vm.example.org:1"}, .this_host = "vm"},
       {given("vm", 2)},
       {}},
      {"--default-hostfile counts for nothing",
       {.hostfile = "hf3", .hostfile_is_default = true},
       allocation,
       {}},
  };
  for (const Narrow& c : cases) {
    INFO(c.name);
    FakeSystem system{.env = sge, .files = files};
    const auto list = system.select(c.request);
    REQUIRE_MESSAGE(list.has_value(), list.error().detail);
    CHECK(list->hosts == c.hosts);
    CHECK(list->outside_allocation == c.outside);
    CHECK(list->allocation ==
          (c.request.hostfile_is_default ? std::vector<HostEntry>{} : allocation));
  }
  FakeSystem system{.env = sge, .files = files};
  const auto none = system.select({.hostfile = "hf3"});
  REQUIRE_FALSE(none.has_value());
  CHECK(none.error().kind == ErrorKind::NotEnoughSlots);
  CHECK(none.error().detail.find("already filled") != std::string::npos);
}

TEST_CASE("host sources: errors say which variable or file, what is wrong and the fix") {
  struct ErrorCase {
    const char* name;
    std::map<std::string, std::string, std::less<>> env;
    std::map<std::string, std::string> files;
    HostRequest request;
    ErrorKind kind;
    const char* detail;
  };
  const std::map<std::string, std::string, std::less<>> condor = {
      {"_CONDOR_PROCNO", "0"}, {"_CONDOR_NPROCS", "3"}, {"CONDOR_CONTACT_FILE", "/c"}};
  const ErrorCase cases[] = {
      {"unreadable --hostfile",
       {},
       {},
       {.hostfile = "nope"},
       ErrorKind::HostfileError,
       "nope: cannot be read: No such file"},
      {"-H host not in the hostfile",
       {},
       {{"h", "a\n"}},
       {.host_values = {"a,b"}, .hostfile = "h"},
       ErrorKind::BadOption,
       "-H: b is not in the hostfile h; with both, -H picks hosts"},
      {"bad -H",
       {},
       {},
       {.host_values = {"a", "b,,c"}},
       ErrorKind::BadOption,
       "-H b,,c: item 2: empty"},
      {"bad slurm list",
       {{"SLURM_JOB_NODELIST", "n[2-1]"}},
       {},
       {},
       ErrorKind::HostfileError,
       "SLURM_JOB_NODELIST=n[2-1]: range 2-1"},
      {"slurm counts do not match",
       {{"SLURM_JOB_NODELIST", "n[1-3]"}, {"SLURM_TASKS_PER_NODE", "2(x2)"}},
       {},
       {},
       ErrorKind::HostfileError,
       "SLURM_TASKS_PER_NODE=2(x2) gives 2 counts for the 3 nodes of SLURM_JOB_NODELIST=n[1-3]"},
      {"bad slurm counts",
       {{"SLURM_JOB_NODELIST", "a"}, {"SLURM_TASKS_PER_NODE", "0"}},
       {},
       {},
       ErrorKind::HostfileError,
       "SLURM_TASKS_PER_NODE=0: '0' is not a count"},
      {"gridengine file missing",
       {{"SGE_ROOT", "/sge"}, {"ARC", "x"}, {"JOB_ID", "7"}, {"PE_HOSTFILE", "/pe"}},
       {},
       {},
       ErrorKind::HostfileError,
       "PE_HOSTFILE: /pe: cannot be read"},
      {"gridengine line without slots",
       {{"SGE_ROOT", "/sge"}, {"ARC", "x"}, {"JOB_ID", "7"}, {"PE_HOSTFILE", "/pe"}},
       {{"/pe", "n1 2 q UNDEFINED\n\n"}},
       {},
       ErrorKind::HostfileError,
       "/pe:2: expected 'host slots queue processors'"},
      {"gridengine bad slots",
       {{"SGE_ROOT", "/sge"}, {"ARC", "x"}, {"JOB_ID", "7"}, {"PE_HOSTFILE", "/pe"}},
       {{"/pe", "n1 x q UNDEFINED\n"}},
       {},
       ErrorKind::HostfileError,
       "/pe:1: 'x' after n1 is not a slot count"},
      {"gridengine empty",
       {{"SGE_ROOT", "/sge"}, {"ARC", "x"}, {"JOB_ID", "7"}, {"PE_HOSTFILE", "/pe"}},
       {{"/pe", ""}},
       {},
       ErrorKind::HostfileError,
       "PE_HOSTFILE=/pe lists no host"},
      {"pbs file missing",
       {{"PBS_NODEFILE", "/pbs"}},
       {},
       {},
       ErrorKind::HostfileError,
       "PBS_NODEFILE: /pbs: cannot be read"},
      {"pbs file malformed",
       {{"PBS_NODEFILE", "/pbs"}},
       {{"/pbs", "a\nb c\n"}},
       {},
       ErrorKind::HostfileError,
       "/pbs:2: 'c' is not key=value"},
      {"lsf odd",
       {{"LSB_MCPU_HOSTS", "h1 2 h2"}},
       {},
       {},
       ErrorKind::HostfileError,
       "LSB_MCPU_HOSTS=h1 2 h2: expected pairs of host and slot count"},
      {"lsf count",
       {{"LSB_MCPU_HOSTS", "h1 x"}},
       {},
       {},
       ErrorKind::HostfileError,
       "LSB_MCPU_HOSTS=h1 x: 'x' after h1 is not a slot count"},
      {"lsf empty",
       {{"LSB_MCPU_HOSTS", " "}},
       {},
       {},
       ErrorKind::HostfileError,
       "LSB_MCPU_HOSTS= : expected pairs"},
      {"condor: not node 0",
       {{"_CONDOR_PROCNO", "2"}, {"_CONDOR_NPROCS", "3"}},
       {},
       {},
       ErrorKind::HostfileError,
       "_CONDOR_PROCNO=2: only node 0 of an HTCondor parallel job"},
      {"condor: bad nprocs",
       {{"_CONDOR_PROCNO", "0"}, {"_CONDOR_NPROCS", "x"}},
       {},
       {},
       ErrorKind::HostfileError,
       "_CONDOR_NPROCS=x is not a node count"},
      {"condor: no contact file",
       {{"_CONDOR_PROCNO", "0"}, {"_CONDOR_NPROCS", "1"}},
       {},
       {},
       ErrorKind::HostfileError,
       "HTCondor parallel universe: neither CONDOR_CONTACT_FILE"},
      {"condor: unreadable",
       condor,
       {},
       {},
       ErrorKind::HostfileError,
       "HTCondor contact file: /c: cannot be read"},
      {"condor: nodes missing",
       condor,
       {{"/c", "0 a 1 u /d\n"}},
       {},
       ErrorKind::HostfileError,
       "/c lists 1 of the 3 nodes (_CONDOR_NPROCS); the others have not started sshd.sh yet"},
      {"condor: short line",
       condor,
       {{"/c", "0 a\n"}},
       {},
       ErrorKind::HostfileError,
       "/c:1: expected 'procno host port user dir'"},
      {"condor: bad port",
       condor,
       {{"/c", "\n0 a x u /d\n"}},
       {},
       ErrorKind::HostfileError,
       "/c:2: 'x' is not a port"},
      {"condor: repeated procno",
       condor,
       {{"/c", "0 a 1 u /d\n0 b 1 u /d\n"}},
       {},
       ErrorKind::HostfileError,
       "/c:2: '0' is not a new node number"},
      {"default hostfile missing",
       {{"OMPI_MCA_orte_default_hostfile", "/x"}},
       {},
       {},
       ErrorKind::HostfileError,
       "OMPI_MCA_orte_default_hostfile: /x: cannot be read"},
      {"mounted hostfile malformed",
       {},
       {{"/etc/mpi/hostfile", "a slots=0\n"}},
       {},
       ErrorKind::HostfileError,
       "/etc/mpi/hostfile:1: 'slots=0' gives no slots"},
  };
  for (const ErrorCase& c : cases) {
    INFO(c.name);
    FakeSystem system{.env = c.env, .files = c.files};
    const auto r = system.select(c.request);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == c.kind);
    CHECK_MESSAGE(r.error().detail.find(c.detail) == 0, r.error().detail);
    // A file not read at all keeps its reader's phase: its hint is not about a line.
    const bool unread = std::string_view(c.detail).find("cannot be read") != std::string::npos;
    CHECK(r.error().phase == (unread ? "read" : ""));
  }
}

TEST_CASE("host sources: blanks and lines of LSF's pairs and HTCondor's contact file") {
  // Runs of spaces, tabs and carriage returns separate words; lines end at '\n' only, are
  // counted from 1 with the blank ones, and keep a '#' (the contact file has no comments).
  const std::map<std::string, std::string, std::less<>> condor = {
      {"_CONDOR_PROCNO", "0"}, {"_CONDOR_NPROCS", "2"}, {"CONDOR_CONTACT_FILE", "/c"}};
  const Case cases[] = {
      {"lsf: tabs, carriage returns and runs of blanks",
       {{"LSB_MCPU_HOSTS", " \th1\t\t2 \r h2  4\r"}},
       {},
       {},
       {given("h1", 2), given("h2", 4)},
       "lsf LSB_MCPU_HOSTS= ?h1??2 ? h2  4?"},
      {"condor: CRLF lines, blank lines, no newline at the end, '#' kept",
       condor,
       {{"/c", "\r\n \t \n1\tb 4445  alice /d#x 1\r\n\n0 a 4444 alice /dir"}},
       {},
       {{.name = "a", .slots = 1, .slots_given = true, .user = "alice", .port = 4444},
        {.name = "b", .slots = 1, .slots_given = true, .user = "alice", .port = 4445}},
       "htcondor _CONDOR_NPROCS=2 contact file /c"},
  };
  check_cases(cases);
  FakeSystem system{.env = condor, .files = {{"/c", "\n \r\n\t\n0 a 1 u /d\n# b 1 u /d\n"}}};
  const auto r = system.select();
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().detail == "/c:5: '#' is not a new node number");
}

TEST_CASE("host sources: each -H word or host file line in order, for the seq mapper") {
  FakeSystem sys;
  sys.files["hf"] = "# order\nn2\nme@n1 slots=2\n\nn2\n[::1]\n";
  const auto file = sys.select({.hostfile = "hf"});
  REQUIRE_MESSAGE(file.has_value(), file.error().detail);
  CHECK(file->host_lines == std::vector<std::string>{"n2", "me@n1", "n2", "[::1]"});
  const auto dash_h = sys.select({.host_values = {"n1:2,n2", "n1"}});
  REQUIRE(dash_h.has_value());
  CHECK(dash_h->host_lines == std::vector<std::string>{"n1", "n2", "n1"});
  // -H picking out of a host file has no single order.
  const auto both = sys.select({.host_values = {"n2"}, .hostfile = "hf"});
  REQUIRE(both.has_value());
  CHECK(both->host_lines.empty());
}

// mpirun 4.1.4 (measured): with a --hostfile per MPMD context, the job's hosts are every file's
// hosts and a host's slots are those of the first file that names it.
TEST_CASE("host sources: a host file per application context") {
  FakeSystem system{.files = {{"hf1", "node1 slots=1\n"},
                              {"hf2", "node1 slots=2\nnode2 slots=1\n"},
                              {"hf3", "node3\n"}}};
  const auto list = system.select({.context_hostfiles = {"hf1", "hf2"}});
  REQUIRE_MESSAGE(list.has_value(), list.error().detail);
  REQUIRE(list->hosts.size() == 2);
  CHECK(list->hosts[0].name == "node1");
  CHECK(list->hosts[0].slots == 1);
  CHECK(list->hosts[1].name == "node2");
  CHECK(list->hosts[1].slots == 1);
  CHECK(list->source == "hostfiles hf1, hf2");
  CHECK(list->hostfile_hosts.at("hf1") == std::vector<std::string>{"node1"});
  CHECK(list->hostfile_hosts.at("hf2") == std::vector<std::string>{"node1", "node2"});
  // A line without slots= keeps counting the node's cores.
  const auto cores = system.select({.context_hostfiles = {"hf3", "hf1"}});
  REQUIRE(cores.has_value());
  CHECK(cores->hosts[0].count_cores);
  CHECK_FALSE(system.select({.context_hostfiles = {"hf1", "nope"}}).has_value());
  // With -H in any context the -H hosts are the job's (their slots): the files only narrow.
  const auto dash_h =
      system.select({.host_values = {"node2", "node3:2"}, .context_hostfiles = {"hf2"}});
  REQUIRE_MESSAGE(dash_h.has_value(), dash_h.error().detail);
  REQUIRE(dash_h->hosts.size() == 2);
  CHECK(dash_h->hosts[0].name == "node2");
  CHECK(dash_h->hosts[0].slots == 1);
  CHECK(dash_h->hosts[1].slots == 2);
  CHECK(dash_h->hostfile_hosts.at("hf2") == std::vector<std::string>{"node1", "node2"});
}

TEST_CASE("host sources: which host files a command line asks for") {
  struct Row {
    std::vector<std::string> args;
    std::string hostfile;
    std::vector<std::string> context_hostfiles;
  };
  const Row rows[] = {
      {{"--hostfile", "a", "./x"}, "a", {}},
      {{"-n", "1", "--hostfile", "a", "./x", ":", "-n", "1", "./y"}, "a", {"a"}},
      {{"-n", "1", "./x", ":", "-n", "1", "--hostfile", "b", "./y"}, "b", {"b"}},
      {{"-n", "1", "--hostfile", "a", "./x", ":", "-n", "1", "--hostfile", "b", "./y", ":", "-n",
        "1", "--hostfile", "a", "./z"},
       "a",
       {"a", "b"}},
      {{"-n", "1", "./x", ":", "-n", "1", "./y"}, "", {}},
      {{"--default-hostfile", "d", "-n", "1", "./x", ":", "-n", "1", "./y"}, "d", {"d"}},
      {{"--default-hostfile", "d", "./x"}, "d", {}},
  };
  for (const Row& row : rows) {
    std::string line;
    for (const std::string& word : row.args) line += word + " ";
    CAPTURE(line);
    const auto o = parse_options(row.args);
    REQUIRE(o.has_value());
    const HostRequest request = host_request(*o);
    CHECK(request.hostfile == row.hostfile);
    CHECK(request.context_hostfiles == row.context_hostfiles);
  }
}

// mpirun 4.1.4 (measured on virtual nodes): a host named by several contexts' -H has the slots
// the last of them gives it; within one context each mention without :N adds a slot.
TEST_CASE("host sources: a host in several contexts' -H has the last context's slots") {
  struct Row {
    std::vector<std::string> args;
    std::vector<std::pair<std::string, int>> slots;
  };
  const Row rows[] = {
      {{"-n", "1", "-H", "b:2", "./x", ":", "-n", "1", "-H", "b", "./y"}, {{"b", 1}}},
      {{"-n", "1", "-H", "b", "./x", ":", "-n", "1", "-H", "b:2", "./y"}, {{"b", 2}}},
      {{"-n", "1", "-H", "b", "./x", ":", "-n", "1", "-H", "a,b", "./y"}, {{"b", 1}, {"a", 1}}},
      {{"-n", "1", "-H", "b,b", "-H", "a", "./x", ":", "-n", "1", "-H", "a", "./y"},
       {{"b", 2}, {"a", 1}}},
      {{"-n", "1", "-H", "b", "./x", ":", "-n", "1", "./y"}, {{"b", 1}}},
      {{"-H", "b", "-H", "b", "./x"}, {{"b", 2}}},
  };
  for (const Row& row : rows) {
    CAPTURE(row.args);
    const auto o = parse_options(row.args);
    REQUIRE(o.has_value());
    FakeSystem system;
    const auto list = select_hosts(host_request(*o), system.lookup(), system.reader());
    REQUIRE(list.has_value());
    std::vector<std::pair<std::string, int>> slots;
    for (const HostEntry& h : list->hosts) slots.emplace_back(h.name, h.slots);
    CHECK(slots == row.slots);
  }
}
