#include <doctest/doctest.h>

#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/pmi_wire.hpp"

using namespace mpilaunch::pmi;
namespace protocol = mpilaunch::protocol;

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
  CHECK(only_reply(s.feed(0, "endcmd\n")).find("rc=-1") != std::string::npos);  // no execname
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

TEST_CASE("PMI-1 spawn: the segments of MPI_Comm_spawn_multiple make one request, one reply") {
  ServerCore s(facts({0}));
  (void)s.feed(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  // MPICH 4.2's PMI_Spawn_multiple for two commands, in two writes as MPICH 4.0 may send.
  CHECK(s.feed(0,
               "mcmd=spawn\nnprocs=2\nexecname=./child\ntotspawns=2\nspawnssofar=1\nargcnt=2\n"
               "arg1=a b\narg2=x=y\npreput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\n"
               "preput_val_0=tag#0$description#n1$port#42$\ninfo_num=2\ninfo_key_0=wdir\n"
               "info_val_0=/tmp\ninfo_key_1=host\ninfo_val_1=n2\nendcmd\n")
            .empty());
  const auto out = s.feed(0,
                          "mcmd=spawn\nnprocs=1\nexecname=worker\ntotspawns=2\nspawnssofar=2\n"
                          "argcnt=0\ninfo_num=1\ninfo_key_0=path\ninfo_val_0=/opt/bin\nendcmd\n");
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == Output::Kind::SpawnRequest);
  CHECK(out[0].rank == 0);
  REQUIRE(out[0].request.has_value());
  const auto* r = std::get_if<protocol::SpawnRequest>(&*out[0].request);
  REQUIRE(r != nullptr);
  CHECK(r->nspace == "kvs_7");
  CHECK(r->rank == 0);
  CHECK(r->pmi);
  CHECK(r->preput ==
        std::vector<std::string>{"PARENT_ROOT_PORT_NAME=tag#0$description#n1$port#42$"});
  REQUIRE(r->apps.size() == 2);
  CHECK(r->apps[0].argv == std::vector<std::string>{"./child", "a b", "x=y"});
  CHECK(r->apps[0].maxprocs == 2);
  CHECK(r->apps[0].wdir == "/tmp");
  CHECK(r->apps[0].host == "n2");
  CHECK(r->apps[0].env == std::vector<std::string>{"PMI_SPAWNED=1"});
  CHECK(r->apps[1].argv == std::vector<std::string>{"/opt/bin/worker"});
  CHECK(r->apps[1].maxprocs == 1);
  CHECK(only_reply(s.answer_spawn(out[0].token, 0, "kvs_7-job2")) == "cmd=spawn_result rc=0\n");
  CHECK(s.answer_spawn(out[0].token, 0, "kvs_7-job2").empty());  // answered once
  // A refusal, and a command without its program.
  const auto again = s.feed(0,
                            "mcmd=spawn\nnprocs=9\nexecname=./child\ntotspawns=1\nspawnssofar=1\n"
                            "argcnt=0\npreput_num=0\ninfo_num=0\nendcmd\n");
  REQUIRE(again.size() == 1);
  CHECK(only_reply(s.answer_spawn(again[0].token, -29, "")) ==
        "cmd=spawn_result rc=-1 msg=spawn_refused\n");
  CHECK(only_reply(s.feed(0, "mcmd=spawn\nnprocs=1\ntotspawns=1\nspawnssofar=1\nendcmd\n")) ==
        "cmd=spawn_result rc=-1 msg=bad_spawn_command\n");
  CHECK(only_reply(s.feed(0, "cmd=get_maxes\n")).starts_with("cmd=maxes "));  // still in step
}

TEST_CASE("PMI-2 spawn: one request from the command's runs of fields; spawn-response with jobid") {
  ServerCore s(facts({1}));
  (void)s.feed(1, "cmd=init pmi_version=2 pmi_subversion=0\n");
  (void)s.feed(1, format_pmi2({"fullinit", {{"pmirank", "1"}, {"threaded", "FALSE"}}}));
  const auto out = s.feed(1, format_pmi2({"spawn",
                                          {{"thrid", "3"},
                                           {"ncmds", "2"},
                                           {"preputcount", "1"},
                                           {"ppkey0", "PARENT_ROOT_PORT_NAME"},
                                           {"ppval0", "p;q"},
                                           {"subcmd", "./a"},
                                           {"maxprocs", "2"},
                                           {"argc", "1"},
                                           {"argv0", "x"},
                                           {"infokeycount", "1"},
                                           {"infokey0", "wdir"},
                                           {"infoval0", "/w"},
                                           {"subcmd", "./b"},
                                           {"maxprocs", "1"},
                                           {"argc", "0"},
                                           {"infokeycount", "0"}}}));
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == Output::Kind::SpawnRequest);
  const auto* r = std::get_if<protocol::SpawnRequest>(&*out[0].request);
  REQUIRE(r != nullptr);
  CHECK(r->rank == 1);
  CHECK(r->preput == std::vector<std::string>{"PARENT_ROOT_PORT_NAME=p;q"});
  REQUIRE(r->apps.size() == 2);
  CHECK(r->apps[0].argv == std::vector<std::string>{"./a", "x"});
  CHECK(r->apps[0].wdir == "/w");
  CHECK(r->apps[1].argv == std::vector<std::string>{"./b"});
  CHECK(r->apps[1].maxprocs == 1);
  CHECK(only_reply(s.answer_spawn(out[0].token, 0, "kvs_7-job2")) ==
        format_pmi2({"spawn-response",
                     {{"thrid", "3"}, {"rc", "0"}, {"jobid", "kvs_7-job2"}, {"nerrs", "0"}}}));
  CHECK(only_reply(s.feed(1, format_pmi2({"spawn", {{"ncmds", "1"}}}))).find("rc=-1;") !=
        std::string::npos);
}

TEST_CASE("a spawned job's key-value space starts with the preput keys") {
  JobFacts f = facts({0});
  f.preput = {{"PARENT_ROOT_PORT_NAME", "port"}};
  ServerCore s(f);
  (void)s.feed(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  CHECK(only_reply(s.feed(0, "cmd=get kvsname=kvs_7 key=PARENT_ROOT_PORT_NAME\n")) ==
        "cmd=get_result rc=0 msg=success value=port\n");
}

namespace {
// The one NameRequest `out` holds.
Output only_name_request(const std::vector<Output>& out) {
  REQUIRE(out.size() == 1);
  CHECK(out[0].kind == Output::Kind::NameRequest);
  REQUIRE(out[0].request.has_value());
  return out[0];
}
std::vector<std::byte> bytes_of(std::string_view text) {
  const auto* p = reinterpret_cast<const std::byte*>(text.data());
  return {p, p + text.size()};
}
protocol::NameReply found(std::string key, std::string_view port) {
  return protocol::NameReply{
      protocol::NameStatus::Ok,
      {protocol::NameFound{.nspace = "kvs_7",
                           .rank = 0,
                           .entry = {std::move(key), protocol::NameFormat::Text, bytes_of(port)}}}};
}
}  // namespace

TEST_CASE(
    "PMI-1 publish_name, lookup_name, unpublish_name go to the name service as Hydra answers") {
  ServerCore s(facts({0, 1}));
  (void)s.feed(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  (void)s.feed(1, "cmd=init pmi_version=1 pmi_subversion=1\n");

  const Output publish =
      only_name_request(s.feed(0, "cmd=publish_name service=svc port=tag#0$a=b$\n"));
  CHECK(publish.rank == 0);
  const auto* p = std::get_if<protocol::NamePublish>(&*publish.request);
  REQUIRE(p != nullptr);
  CHECK(p->nspace == "kvs_7");
  CHECK(p->rank == 0);
  CHECK(p->range == protocol::NameRange::Session);
  CHECK(p->persistence == protocol::NamePersistence::Session);
  REQUIRE(p->entries.size() == 1);
  CHECK(p->entries[0].key == "svc");
  CHECK(p->entries[0].format == protocol::NameFormat::Text);
  CHECK(p->entries[0].value == bytes_of("tag#0$a=b$"));
  CHECK(s.names_waiting() == 1);
  CHECK(only_reply(s.answer_name(publish.token, {})) ==
        "cmd=publish_result info=ok rc=0 msg=success\n");
  CHECK(s.names_waiting() == 0);
  CHECK(s.answer_name(publish.token, {}).empty());  // answered once

  const Output lookup = only_name_request(s.feed(1, "cmd=lookup_name service=svc\n"));
  const auto* l = std::get_if<protocol::NameLookup>(&*lookup.request);
  REQUIRE(l != nullptr);
  CHECK(l->rank == 1);
  CHECK(l->keys == std::vector<std::string>{"svc"});
  CHECK(l->wait == 0);  // Hydra answers at once, found or not
  CHECK(only_reply(s.answer_name(lookup.token, found("svc", "tag#0$a=b$"))) ==
        "cmd=lookup_result port=tag#0$a=b$ info=ok rc=0 msg=success\n");

  const Output missing = only_name_request(s.feed(1, "cmd=lookup_name service=none\n"));
  CHECK(only_reply(s.answer_name(missing.token, {protocol::NameStatus::NotFound, {}})) ==
        "cmd=lookup_result info=ok rc=1 msg=service_not_found\n");
  // A reply that does not carry the key asked for is not found either.
  const Output other = only_name_request(s.feed(1, "cmd=lookup_name service=svc\n"));
  CHECK(only_reply(s.answer_name(other.token, found("else", "x"))).find(" rc=1 ") !=
        std::string::npos);

  const Output unpublish = only_name_request(s.feed(0, "cmd=unpublish_name service=svc\n"));
  const auto* u = std::get_if<protocol::NameUnpublish>(&*unpublish.request);
  REQUIRE(u != nullptr);
  CHECK(u->keys == std::vector<std::string>{"svc"});
  CHECK(only_reply(s.answer_name(unpublish.token, {protocol::NameStatus::JobEnded, {}})) ==
        "cmd=unpublish_result info=ok rc=1 msg=job_ended\n");

  CHECK(only_reply(s.feed(0, "cmd=publish_name service=svc\n")) ==
        "cmd=publish_result rc=-1 msg=bad_request\n");
  CHECK(only_reply(s.feed(0, "cmd=lookup_name\n")) == "cmd=lookup_result rc=-1 msg=bad_request\n");
}

TEST_CASE("PMI-2 name-publish, name-lookup, name-unpublish answer with thrid, port and value") {
  ServerCore s(facts({0}));
  (void)s.feed(0, "cmd=init pmi_version=2 pmi_subversion=0\n");
  (void)s.feed(0, format_pmi2({"fullinit", {{"pmirank", "0"}, {"threaded", "FALSE"}}}));
  const Output publish = only_name_request(s.feed(
      0, format_pmi2({"name-publish", {{"name", "svc"}, {"port", "p;q"}, {"infokeycount", "0"}}})));
  const auto* p = std::get_if<protocol::NamePublish>(&*publish.request);
  REQUIRE(p != nullptr);
  REQUIRE(p->entries.size() == 1);
  CHECK(p->entries[0].value == bytes_of("p;q"));
  CHECK(only_reply(s.answer_name(publish.token, {})) ==
        format_pmi2({"name-publish-response", {{"rc", "0"}}}));

  const Output lookup = only_name_request(s.feed(
      0, format_pmi2({"name-lookup", {{"thrid", "7"}, {"name", "svc"}, {"infokeycount", "0"}}})));
  CHECK(only_reply(s.answer_name(lookup.token, found("svc", "p;q"))) ==
        format_pmi2(
            {"name-lookup-response",
             {{"thrid", "7"}, {"port", "p;q"}, {"value", "p;q"}, {"found", "TRUE"}, {"rc", "0"}}}));
  const Output& missing =
      only_name_request(s.feed(0, format_pmi2({"name-lookup", {{"name", "none"}}})));
  CHECK(only_reply(s.answer_name(missing.token, {protocol::NameStatus::NotFound, {}})) ==
        format_pmi2({"name-lookup-response",
                     {{"found", "FALSE"}, {"rc", "1"}, {"errmsg", "service_not_found"}}}));
  const Output& unpublish =
      only_name_request(s.feed(0, format_pmi2({"name-unpublish", {{"name", "svc"}}})));
  CHECK(std::holds_alternative<protocol::NameUnpublish>(*unpublish.request));
  CHECK(only_reply(s.answer_name(unpublish.token, {})) ==
        format_pmi2({"name-unpublish-response", {{"rc", "0"}}}));
  CHECK(only_reply(s.feed(0, format_pmi2({"name-publish", {{"name", "svc"}}}))).find("rc=-1;") !=
        std::string::npos);
}

TEST_CASE("a name answer for a rank whose connection died is dropped") {
  ServerCore s(facts({0}));
  (void)s.feed(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  const Output lookup = only_name_request(s.feed(0, "cmd=lookup_name service=svc\n"));
  const std::uint32_t token = lookup.token;
  REQUIRE(s.feed(0, std::string(1100, 'x')).size() == 1);  // overlong: the connection is dead
  CHECK(s.answer_name(token, found("svc", "p")).empty());
  CHECK(s.names_waiting() == 0);
}

TEST_CASE("a spawn answer for a rank whose connection died is dropped, once") {
  ServerCore s(facts({0}));
  (void)s.feed(0, "cmd=init pmi_version=1 pmi_subversion=1\n");
  const auto out = s.feed(0,
                          "mcmd=spawn\nnprocs=1\nexecname=./child\ntotspawns=1\nspawnssofar=1\n"
                          "argcnt=0\npreput_num=0\ninfo_num=0\nendcmd\n");
  REQUIRE(out.size() == 1);
  REQUIRE(out[0].kind == Output::Kind::SpawnRequest);
  REQUIRE(s.feed(0, std::string(1100, 'x')).size() == 1);  // overlong: the connection is dead
  CHECK(s.answer_spawn(out[0].token, 0, "kvs_7-job2").empty());
  CHECK(s.answer_spawn(out[0].token + 1, 0, "kvs_7-job2").empty());  // a token never given
}
