#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "common/pmi_wire.hpp"

using namespace mpilaunch::pmi;

namespace {
JobFacts facts(std::vector<int> local) {
  return JobFacts{.kvsname = "kvs_7",
                  .size = 4,
                  .process_mapping = "(vector,(0,2,2))",
                  .local_ranks = std::move(local),
                  .app_sizes = {}};
}
std::string only_reply(const std::vector<Output>& out) {
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == Output::Kind::Reply);
  return out[0].bytes;
}
}  // namespace

TEST_CASE("PMI-1 lines parse key=value pairs; value= runs to the end of the line") {
  auto p = parse_pmi1_line("cmd=put kvsname=k key=a value=x y=z\n");
  REQUIRE(p.command);
  CHECK(p.command->cmd == "put");
  CHECK(p.command->get("key") == "a");
  CHECK(p.command->get("value") == "x y=z");
  CHECK_FALSE(p.command->get("y"));
  CHECK(format_pmi1(*p.command) == "cmd=put kvsname=k key=a value=x y=z\n");
}

TEST_CASE("malformed PMI-1 lines are reported, not crashed on") {
  CHECK_FALSE(parse_pmi1_line("").command);
  CHECK_FALSE(parse_pmi1_line("put key=a").command);
  CHECK_FALSE(parse_pmi1_line("key=a cmd=put").command);
  CHECK_FALSE(parse_pmi1_line("cmd=").command);
  CHECK_FALSE(parse_pmi1_line("cmd=get =x").command);
  CHECK_FALSE(parse_pmi1_line(std::string(2000, 'a')).command);
  CHECK_FALSE(parse_pmi1_line("cmd=get key").error.empty());
}

TEST_CASE("PMI-2 bodies round-trip, including escaped semicolons") {
  const Command c{"kvs-put", {{"key", "a;b"}, {"value", "v;;"}}};
  const std::string wire = format_pmi2(c);
  CHECK(wire.substr(0, 6) == std::string(6 - std::to_string(wire.size() - 6).size(), ' ') +
                                 std::to_string(wire.size() - 6));
  auto p = parse_pmi2_body(std::string_view(wire).substr(6));
  REQUIRE(p.command);
  CHECK(p.command->cmd == "kvs-put");
  CHECK(p.command->get("key") == "a;b");
  CHECK(p.command->get("value") == "v;;");
  CHECK_FALSE(parse_pmi2_body("cmd=x").command);
  CHECK_FALSE(parse_pmi2_body("key=1;").command);
  CHECK_FALSE(parse_pmi2_body(";").command);
}

TEST_CASE("PMI-1 session: init, facts, put, node barrier, get after release, finalize") {
  ServerCore s(facts({0, 1}));
  CHECK(only_reply(s.feed(0, "cmd=init pmi_version=1 pmi_subversion=1\n")) ==
        "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
  CHECK(only_reply(s.feed(0, "cmd=get_my_kvsname\n")) == "cmd=my_kvsname rc=0 kvsname=kvs_7\n");
  CHECK(only_reply(s.feed(0, "cmd=get kvsname=kvs_7 key=PMI_process_mapping\n")) ==
        "cmd=get_result rc=0 msg=success value=(vector,(0,2,2))\n");
  // A line split across two reads is buffered.
  CHECK(s.feed(1, "cmd=init pmi_vers").empty());
  CHECK(only_reply(s.feed(1, "ion=1 pmi_subversion=1\n")).find("rc=0") != std::string::npos);
  CHECK(only_reply(s.feed(0, "cmd=put kvsname=kvs_7 key=a value=1\n")) ==
        "cmd=put_result rc=0 msg=success\n");
  CHECK(s.feed(0, "cmd=barrier_in\n").empty());
  const auto ready = s.feed(1, "cmd=barrier_in\n");
  REQUIRE(ready.size() == 1);
  CHECK(ready[0].kind == Output::Kind::BarrierReady);
  CHECK(ready[0].puts == std::map<std::string, std::string>{{"a", "1"}});
  const auto rel = s.release_barrier({{"a", "1"}, {"remote", "2"}});
  REQUIRE(rel.size() == 2);
  CHECK(rel[0].bytes == "cmd=barrier_out\n");
  CHECK(only_reply(s.feed(1, "cmd=get kvsname=kvs_7 key=remote\n")) ==
        "cmd=get_result rc=0 msg=success value=2\n");
  CHECK(only_reply(s.feed(1, "cmd=get kvsname=kvs_7 key=missing\n")).find("rc=-1") !=
        std::string::npos);
  const auto fin = s.feed(0, "cmd=finalize\n");
  REQUIRE(fin.size() == 2);
  CHECK(fin[0].bytes == "cmd=finalize_ack\n");
  CHECK(fin[1].kind == Output::Kind::Finalized);
  CHECK(s.finalized(0));
  CHECK_FALSE(s.finalized(1));
}

TEST_CASE("PMI-1 abort carries the exit code and needs no reply") {
  ServerCore s(facts({3}));
  (void)s.feed(3, "cmd=init pmi_version=1 pmi_subversion=1\n");
  const auto out = s.feed(3, "cmd=abort exitcode=3\n");
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == Output::Kind::Abort);
  CHECK(out[0].rank == 3);
  CHECK(out[0].exit_code == 3);
}

TEST_CASE("PMI-1 abort from MPICH 4.2: the message with spaces ends the line") {
  const auto p = parse_pmi1_line(
      "cmd=abort exitcode=5 message=application called MPI_Abort(MPI_COMM_WORLD, 5) - process 1\n");
  REQUIRE(p.command);
  CHECK(p.command->get("exitcode") == "5");
  CHECK(p.command->get("message") == "application called MPI_Abort(MPI_COMM_WORLD, 5) - process 1");
  ServerCore s(facts({1}));
  (void)s.feed(1, "cmd=init pmi_version=1 pmi_subversion=1\n");
  const auto out = s.feed(
      1,
      "cmd=abort exitcode=5 message=application called MPI_Abort(MPI_COMM_WORLD, 5) - process 1\n");
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == Output::Kind::Abort);
  CHECK(out[0].rank == 1);
  CHECK(out[0].exit_code == 5);
}

TEST_CASE("malformed and unknown PMI-1 commands get rc=-1 replies") {
  ServerCore s(facts({0}));
  CHECK(only_reply(s.feed(0, "garbage\n")).find("rc=-1") != std::string::npos);
  CHECK(only_reply(s.feed(0, "cmd=frobnicate\n")) ==
        "cmd=frobnicate_result rc=-1 msg=unsupported command\n");
  CHECK(only_reply(s.feed(0, "cmd=put key=a\n")).find("rc=-1") != std::string::npos);
  CHECK(s.feed(0, "mcmd=spawn\nnprocs=2\n").empty());
  const auto spawn = s.feed(0, "endcmd\n");
  REQUIRE(spawn.size() == 2);
  CHECK(spawn[0].kind == Output::Kind::Reply);
  CHECK(spawn[0].bytes.find("rc=-1") != std::string::npos);
  CHECK(spawn[1].kind == Output::Kind::Unsupported);
  CHECK(spawn[1].bytes == "MPI_Comm_spawn (PMI spawn)");
  const auto big = s.feed(0, std::string(1100, 'x'));
  REQUIRE(big.size() == 1);
  CHECK(big[0].kind == Output::Kind::ProtocolError);
  CHECK(s.feed(0, "cmd=get_maxes\n").empty());  // the connection is dead now
}

TEST_CASE("PMI-2 session after a PMI-1 init line switches to length-prefixed messages") {
  ServerCore s(facts({0}));
  CHECK(only_reply(s.feed(0, "cmd=init pmi_version=2 pmi_subversion=0\n")) ==
        "cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0\n");
  const std::string fi = format_pmi2({"fullinit", {{"pmirank", "0"}, {"threaded", "FALSE"}}});
  CHECK(s.feed(0, fi.substr(0, 10)).empty());
  const std::string r = only_reply(s.feed(0, fi.substr(10)));
  CHECK(r.find("cmd=fullinit-response;") != std::string::npos);
  CHECK(r.find(";size=4;") != std::string::npos);
  CHECK(only_reply(s.feed(0, format_pmi2({"kvs-put", {{"key", "k"}, {"value", "v"}}})))
            .find("rc=0;") != std::string::npos);
  const auto ready = s.feed(0, format_pmi2({"kvs-fence", {}}));
  REQUIRE(ready.size() == 1);
  CHECK(ready[0].kind == Output::Kind::BarrierReady);
  CHECK(only_reply(s.release_barrier({{"k", "v"}})).find("kvs-fence-response") !=
        std::string::npos);
  CHECK(
      only_reply(s.feed(0, format_pmi2({"kvs-get", {{"key", "k"}}}))).find("found=TRUE;value=v;") !=
      std::string::npos);
  CHECK(only_reply(s.feed(0, format_pmi2({"info-getjobattr", {{"key", "PMI_process_mapping"}}})))
            .find("value=(vector,(0,2,2));") != std::string::npos);
  CHECK(only_reply(s.feed(0, format_pmi2({"kvs-get", {{"key", "none"}}}))).find("found=FALSE") !=
        std::string::npos);
  CHECK(only_reply(s.feed(0, "    11cmd=bogus;x")).find("rc=-1") != std::string::npos);
  const auto bad = s.feed(0, "abcdefcmd=x;");
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].kind == Output::Kind::ProtocolError);
}

TEST_CASE("PMI_process_mapping: blocks of consecutive ranks per node, in rank order") {
  using Nodes = std::vector<std::vector<std::uint32_t>>;
  CHECK(process_mapping(Nodes{{0, 1}, {2, 3}}) == "(vector,(0,2,2))");
  CHECK(process_mapping(Nodes{{0, 2}, {1, 3}}) == "(vector,(0,2,1),(0,2,1))");
  CHECK(process_mapping(Nodes{{0, 1, 2}, {3}}) == "(vector,(0,1,3),(1,1,1))");
  CHECK(process_mapping(Nodes{{0}, {1, 2}}) == "(vector,(0,1,1),(1,1,2))");
  CHECK(process_mapping(Nodes{{0, 1}, {2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}}) ==
        "(vector,(0,2,2),(2,2,4))");
  CHECK(process_mapping(Nodes{{0, 1, 2, 3, 4, 5, 6, 7}}) == "(vector,(0,1,8))");
  CHECK(process_mapping(Nodes{{0, 1}, {1}}).empty());  // a rank twice
  CHECK(process_mapping(Nodes{{0, 5}}).empty());       // a hole
  Nodes scattered(200);  // 400 ranks dealt over 200 nodes then reversed: too long for a value
  for (std::uint32_t r = 0; r < 400; ++r) scattered[(r * 7) % 200].push_back(r);
  CHECK(process_mapping(scattered).empty());
}

TEST_CASE("node puts travel as self-delimiting blobs that concatenate") {
  const std::map<std::string, std::string> a{{"-bcast-1-0", "2f6465"}, {"k", ""}};
  const std::map<std::string, std::string> b{{"-allgather-shm-1-1", std::string(700, 'f')}};
  std::vector<std::byte> blobs = encode_puts(a);
  for (const auto& more : {encode_puts(b), encode_puts({})})
    blobs.insert(blobs.end(), more.begin(), more.end());
  const auto both = decode_puts(blobs);
  REQUIRE(both);
  CHECK(both->size() == 3);
  CHECK(both->at("k").empty());
  CHECK(both->at("-allgather-shm-1-1").size() == 700);
  CHECK(decode_puts({})->empty());
  const std::vector<std::byte> blob = encode_puts(a);
  CHECK_FALSE(decode_puts(std::span(blob).first(blob.size() - 1)));
  const std::byte huge[4] = {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
  CHECK_FALSE(decode_puts(huge));
}

TEST_CASE("a rank counts as connected once its init line arrived") {
  ServerCore s(facts({0, 1}));
  CHECK_FALSE(s.connected(0));
  (void)s.feed(0, "cmd=init pmi_");
  CHECK_FALSE(s.connected(0));
  (void)s.feed(0, "version=1 pmi_subversion=1\n");
  CHECK(s.connected(0));
  CHECK_FALSE(s.connected(1));
  CHECK_FALSE(s.connected(7));
}

TEST_CASE("appnum is the rank's application context, through PMI-1 and PMI-2's fullinit") {
  JobFacts f = facts({0, 1, 2, 3});
  CHECK(f.appnum_of(3) == 0);  // one context
  f.app_sizes = {1, 2, 1};
  CHECK(f.appnum_of(0) == 0);
  CHECK(f.appnum_of(2) == 1);
  CHECK(f.appnum_of(3) == 2);
  ServerCore s(f);
  (void)s.feed(2, "cmd=init pmi_version=1 pmi_subversion=1\n");
  CHECK(only_reply(s.feed(2, "cmd=get_appnum\n")) == "cmd=appnum rc=0 appnum=1\n");
  (void)s.feed(3, "cmd=init pmi_version=2 pmi_subversion=0\n");
  const std::string r =
      only_reply(s.feed(3, format_pmi2({"fullinit", {{"pmirank", "3"}, {"threaded", "FALSE"}}})));
  CHECK(r.find(";appnum=2;") != std::string::npos);
}

TEST_CASE("dynamic-process commands are answered rc=-1 and named as their MPI call") {
  ServerCore s(facts({0, 1}));
  (void)s.feed(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  const auto publish = s.feed(0, "cmd=publish_name service=a port=b\n");
  REQUIRE(publish.size() == 2);
  CHECK(publish[0].bytes.find("rc=-1") != std::string::npos);
  CHECK(publish[1].kind == Output::Kind::Unsupported);
  CHECK(publish[1].rank == 0);
  CHECK(publish[1].bytes == "MPI_Publish_name (PMI publish_name)");
  (void)s.feed(1, "cmd=init pmi_version=2 pmi_subversion=0\n");
  (void)s.feed(1, format_pmi2({"fullinit", {{"pmirank", "1"}, {"threaded", "FALSE"}}}));
  const auto lookup = s.feed(1, format_pmi2({"name-lookup", {{"name", "a"}}}));
  REQUIRE(lookup.size() == 2);
  CHECK(lookup[0].bytes.find("rc=-1") != std::string::npos);
  CHECK(lookup[1].kind == Output::Kind::Unsupported);
  CHECK(lookup[1].bytes == "MPI_Lookup_name (PMI name-lookup)");
  CHECK(dynamic_call("spawn") == "MPI_Comm_spawn (PMI spawn)");
  CHECK(dynamic_call("get") == "");
}
