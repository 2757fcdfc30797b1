#include <doctest/doctest.h>

#include "launcher/job/program_pmi.hpp"

using namespace mpilaunch;
using namespace mpilaunch::launcher;

namespace {
Result<std::vector<std::string>> libs(std::vector<std::string> names) {
  return names;
}
Result<std::vector<std::string>> unreadable(std::string why) {
  return Error{.kind = ErrorKind::BadOption, .detail = std::move(why)};
}
}  // namespace

TEST_CASE("--pmi: an explicit choice wins over whatever the program links") {
  const auto ompi = libs({"libmpi.so.40", "libc.so.6"});
  CHECK(choose_pmi(PmiKind::Pmix, "/a", libs({"libmpich.so.12"})) ==
        PmiChoice{true, false, "--pmi=pmix", true});
  CHECK(choose_pmi(PmiKind::Pmi1, "/a", ompi) == PmiChoice{false, true, "--pmi=pmi1", true});
  CHECK(choose_pmi(PmiKind::Pmi1, "/a", libs({"libc.so.6"})) ==
        PmiChoice{false, true, "--pmi=pmi1", false});
  CHECK_FALSE(choose_pmi(PmiKind::Pmix, "/a", unreadable("a script")).links_mpi);
  const PmiChoice pmi2 = choose_pmi(PmiKind::Pmi2, "/a", ompi);
  CHECK(pmi2.pmi);
  CHECK_FALSE(pmi2.pmix);
}

TEST_CASE("--pmi=auto: MPICH's ABI family gets PMI, Open MPI gets PMIx, with the reason") {
  for (const char* lib : {"libmpich.so.12", "libmpi.so.12", "libpmi.so.0", "libpmi2.so.0"}) {
    CAPTURE(lib);
    const PmiChoice c = choose_pmi(PmiKind::Auto, "/bin/app", libs({"libm.so.6", lib}));
    CHECK(c.pmi);
    CHECK_FALSE(c.pmix);
    CHECK(c.reason == std::string("auto: /bin/app links ") + lib + " (MPICH family)");
    CHECK(pmi_label(c) == "PMI");
    CHECK(c.links_mpi);
  }
  for (const char* lib :
       {"libmpi.so.40", "libpmix.so.2", "libopen-rte.so.40", "libopen-pal.so.40"}) {
    CAPTURE(lib);
    const PmiChoice c = choose_pmi(PmiKind::Auto, "/bin/app", libs({lib}));
    CHECK(c.pmix);
    CHECK_FALSE(c.pmi);
    CHECK(pmi_label(c) == "PMIx");
    CHECK(c.links_mpi);
  }
  // The first MPI library listed decides.
  CHECK(choose_pmi(PmiKind::Auto, "/a", libs({"libmpich.so.12", "libpmix.so.2"})).pmi);
}

TEST_CASE("--pmi=auto: scripts, static and unknown programs get both interfaces") {
  const PmiChoice none = choose_pmi(PmiKind::Auto, "/usr/bin/python3", libs({"libc.so.6"}));
  CHECK(none.pmix);
  CHECK(none.pmi);
  CHECK(pmi_label(none) == "PMIx and PMI");
  CHECK_FALSE(none.links_mpi);  // may never call MPI_Init: no wire-up limit from its start
  CHECK(none.reason.find("/usr/bin/python3 links no known MPI library") != std::string::npos);
  CHECK(choose_pmi(PmiKind::Auto, "/a", libs({})).pmi);  // static: no DT_NEEDED at all
  const PmiChoice script =
      choose_pmi(PmiKind::Auto, "/run.sh", unreadable("/run.sh: not an ELF program (a script?)"));
  CHECK(script.pmix);
  CHECK(script.pmi);
  CHECK(script.reason.find("not an ELF program") != std::string::npos);
  CHECK_FALSE(script.links_mpi);
  // An explicit choice reads the libraries too: a singleton is found under it (singleton_error).
  CHECK(choose_pmi(PmiKind::Pmix, "/a", libs({"libmpi.so.40"})).links_mpi);
  // libmpi.so.4 is neither family: not a prefix match of libmpi.so.40.
  CHECK(choose_pmi(PmiKind::Auto, "/a", libs({"libmpi.so.4"})).pmi);
}

TEST_CASE("a PMIx failure under --pmi=pmi1 says the program wants PMIx, and how to give it") {
  const PmiChoice pmi_only{false, true, "--pmi=pmi1"};
  Error e{.kind = ErrorKind::PmixError, .detail = "PMIx_Init failed"};
  explain_interface_mismatch(e, pmi_only);
  CHECK(e.detail.starts_with("PMIx_Init failed; the ranks were given PMI only (--pmi=pmi1)"));
  CHECK(e.detail.find("--pmi=pmix") != std::string::npos);
  Error served{.kind = ErrorKind::PmixError, .detail = "x"};
  explain_interface_mismatch(served, PmiChoice{true, true, "auto"});
  CHECK(served.detail == "x");
  Error other{.kind = ErrorKind::RankSignaled, .detail = "y"};
  explain_interface_mismatch(other, pmi_only);
  CHECK(other.detail == "y");
}

TEST_CASE("a rank of an MPI program that ended 0 without reaching its server ran as a singleton") {
  const PmiChoice pmi1 = choose_pmi(PmiKind::Pmi1, "/a", libs({"libmpi.so.40"}));
  protocol::RankExited exit{.rank = 1, .pid = 42, .reason = Exited{0}};
  const auto e = singleton_error(exit, "n1", pmi1, 2);
  REQUIRE(e);
  CHECK(e->kind == ErrorKind::PmixError);
  CHECK(e->rank == 1);
  CHECK(e->host == "n1");
  CHECK(e->phase == "startup");
  CHECK_MESSAGE(e->detail.find("singleton (rank 0 of 1, not of 2)") != std::string::npos,
                e->detail);
  Error explained = *e;
  explain_interface_mismatch(explained, pmi1);
  CHECK_MESSAGE(explained.detail.find("run it with --pmi=pmix") != std::string::npos,
                explained.detail);
  // Not a singleton: one rank, a rank that connected, a failed end, a program without MPI.
  CHECK_FALSE(singleton_error(exit, "n1", pmi1, 1));
  CHECK_FALSE(singleton_error(
      protocol::RankExited{.rank = 1, .reason = Exited{0}, .connected = true}, "n1", pmi1, 2));
  CHECK_FALSE(singleton_error(protocol::RankExited{.rank = 1, .reason = Exited{3}}, "n1", pmi1, 2));
  CHECK_FALSE(
      singleton_error(protocol::RankExited{.rank = 1, .reason = Signaled{9}}, "n1", pmi1, 2));
  CHECK_FALSE(singleton_error(exit, "n1", choose_pmi(PmiKind::Pmi1, "/a", libs({"libc.so.6"})), 2));
}

TEST_CASE("--pmi=auto with MPMD: every context's program counts; two MPI libraries are refused") {
  const PmiChoice ompi = choose_pmi(PmiKind::Auto, "/bin/a", libs({"libmpi.so.40"}));
  const PmiChoice mpich = choose_pmi(PmiKind::Auto, "/bin/b", libs({"libmpich.so.12"}));
  const PmiChoice script = choose_pmi(PmiKind::Auto, "/bin/s", unreadable("a script"));
  const PmiChoice plain = choose_pmi(PmiKind::Auto, "/bin/true", libs({"libc.so.6"}));
  const auto one = choose_job_pmi({ompi}, {"./a"});
  REQUIRE(one);
  CHECK(*one == ompi);
  const auto same = choose_job_pmi({mpich, mpich}, {"./b", "./b"});
  REQUIRE(same);
  CHECK(*same == mpich);
  // An Open MPI program with a script: both interfaces, each rank finds the one it needs.
  const auto with_script = choose_job_pmi({ompi, script}, {"./a", "./s"});
  REQUIRE(with_script);
  CHECK(with_script->pmix);
  CHECK(with_script->pmi);
  CHECK_FALSE(with_script->links_mpi);
  CHECK(with_script->reason.find("; context 2: auto: a script") != std::string::npos);
  // MPICH first, a program without MPI next: PMI for the MPICH ranks, PMIx stays available.
  const auto with_plain = choose_job_pmi({mpich, plain}, {"./b", "/bin/true"});
  REQUIRE(with_plain);
  CHECK(with_plain->pmi);
  CHECK(with_plain->pmix);
  for (const auto& order :
       {std::vector<PmiChoice>{ompi, script, mpich}, std::vector<PmiChoice>{mpich, ompi}}) {
    const auto mixed = choose_job_pmi(order, {"./x", "./y", "./z"});
    REQUIRE_FALSE(mixed);
    CHECK(mixed.error().kind == ErrorKind::BadOption);
    CHECK(mixed.error().detail.find("cannot share one MPI_COMM_WORLD") != std::string::npos);
  }
  // An explicit --pmi serves one interface to every rank: no refusal.
  const auto forced =
      choose_job_pmi({choose_pmi(PmiKind::Pmix, "/bin/a", libs({"libmpi.so.40"})),
                      choose_pmi(PmiKind::Pmix, "/bin/b", libs({"libmpich.so.12"}))},
                     {"./a", "./b"});
  REQUIRE(forced);
  CHECK(forced->pmix);
  CHECK_FALSE(forced->pmi);
}
