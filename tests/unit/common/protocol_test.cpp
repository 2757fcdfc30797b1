#include <doctest/doctest.h>
#include "common/text_format.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "common/handshake.hpp"
#include "common/protocol.hpp"

using namespace mpilaunch;
using namespace mpilaunch::protocol;

namespace {

std::vector<std::byte> bytes(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

Envelope round_trip(const Message& m, std::uint32_t id = 0, std::uint32_t refers_to = 0) {
  const auto wire = encode(m, id, refers_to);
  auto frame = decode_frame(wire);
  REQUIRE(frame.has_value());
  REQUIRE(frame.value().has_value());
  CHECK(frame.value()->wire_size() == wire.size());
  auto env = decode_message(*frame.value());
  REQUIRE(env.has_value());
  return env.value();
}

}  // namespace

TEST_CASE("every message type round-trips") {
  const std::vector<Message> messages = {
      LauncherHello{"0.1.0", "secret-token", 2, "node3"},
      AgentHello{"0.1.0", "host", 1234, 8, {"/sys/class/infiniband/mlx5_0"}},
      AgentHello{"0.1.0", "host", 1234, 8, {}},
      AgentHello{"0.1.0", "host", 1234, 8, {}, 160},  // started by sshd: the login's time
      AgentHello{"0.1.0",
                 "host",
                 1234,
                 2,
                 {},
                 -1,
                 NodeTopology{{{0, 0, 0, 0, 0, 0, 0}, {4, 1, -1, -1, -1, -1, 1}}}},
      JobSpec{"job1",
              "mpilaunch-job1-1",
              1,
              {{"n1", {0, 1}, 2, {"0", "1-3,8"}}, {"n2", {2}, 0, {}}},
              {{{"./a.out", "x y"}, {"C=3"}, "/tmp/w", 2}, {{"./b"}, {}, "", 1}},
              {"A=1", "B="},
              "/dev/shm/j",
              true,
              true,
              false,
              17},
      JobSpec{
          "job1", "ns", 2, {{"n1", {0}}}, {{{"./a"}, {}, "", 1}}, {}, "/tmp/j", false, false, true},
      JobSpec{"job1",
              "ns",
              1,
              {{"n1", {0}}},
              {{{"./a"}, {}, "", 1}},
              {},
              "/tmp/j",
              false,
              true,
              false,
              2,
              0},
      JobSpec{"j",
              "ns",
              1,
              {{"n1", {0}}},
              {{{"./a"}, {}, "", 1}},
              {},
              "/t",
              false,
              true,
              false,
              0,
              kStdinAll},
      JobSpec{"j",
              "ns",
              1,
              {{"n1", {0}}},
              {{{"./a"}, {}, "", 1}},
              {},
              "/t",
              false,
              true,
              false,
              0,
              0,
              false},
      JobSpec{"j",
              "ns",
              1,
              {{"n1", {0}}},
              {{{"./a"}, {}, "", 1}},
              {},
              "/t",
              false,
              true,
              false,
              0,
              0,
              true,
              "/opt/openmpi-4.1"},
      JobSpec{.job_id = "j", .nspace = "ns", .index_argv_by_rank = true},
      JobSpec{.job_id = "j", .nspace = "ns", .cpus_not_bound = true},
      JobSpec{.job_id = "j",
              .nspace = "ns",
              .nodes = {{"n1", {0, 1}, 16, {"", ""}, true}, {"n2", {2}, 16, {"0"}, false}}},
      JobSpec{.job_id = "j", .nspace = "ns", .apps = {{{"a"}, {}, "/w", 2, "bin:/opt/b"}}},
      Spawn{"ns"},
      RankStarted{3, 4242, false},
      RankStarted{4, 4243, true},
      RankOutput{1, Stream::Stderr, bytes("hello\n")},
      FenceContribute{"ns", "ns:4294967294;", 7, 0, true, bytes("blob")},
      FenceRelease{"ns", "ns:4294967294;", 7, -1, bytes("blobblob")},
      DmodexRequest{"ns", 5},
      DmodexReply{0, bytes("data")},
      RankExited{2, 99, Signaled{11, true}, std::nullopt, true, false},
      RankExited{2, 99, Exited{3}, 7, true, true},
      RankExited{2, 99, Exited{3}, std::nullopt, true, false, false},
      SpawnFailed{Error{.kind = ErrorKind::ExecutableNotFound,
                        .host = "n1",
                        .rank = 0,
                        .executable = "./nope",
                        .evidence = {"execve: ENOENT"}}},
      Kill{9},
      Shutdown{},
      AgentError{Error{.kind = ErrorKind::PmixError, .detail = "PMIx_server_init: -1"}},
      AgentError{Error{.kind = ErrorKind::UnsupportedMpiCall,
                       .rank = 0,
                       .phase = "running",
                       .detail = "MPI_Comm_spawn (PMIx_Spawn)"}},
      AgentBye{},
      RankConnected{5},
      StdinData{bytes("line one\n"), false},
      StdinData{{}, true},
      StdinCredit{65536},
      OutputHeld{3, true, false},
      OutputHeld{7, true, true},
      CollectStacks{5000},
      NodeStacks{},
      NodeStacks{{{0, 17667, "gdb", "Thread 1 (LWP 17667):\n#0  main ()\n", ""},
                  {3, 17668, "", "", "did not answer within 5 s"}}},
      SpawnRequest{},
      SpawnRequest{"mpilaunch-j-1",
                   0,
                   {{{"./dynamic", "child"}, {"OMPI_PARENT_PORT=x:1"}, "/tmp", 2, "n1,n2", "", ""},
                    {{"./worker"}, {}, "", 1, "", "hosts", "n3"}},
                   "slot"},
      SpawnRequest{"kvs-1",
                   1,
                   {{{"./dynamic_mpich", "child"}, {}, "", 2, "", "", ""}},
                   "",
                   true,
                   {"PARENT_ROOT_PORT_NAME=tag#0$x$", "k="}},
      SpawnReply{0, "mpilaunch-j-1-job2"},
      SpawnReply{-29, ""},
      ChildJob{},
      ChildJob{JobSpec{.job_id = "j",
                       .nspace = "mpilaunch-j-1-job2",
                       .nodes = {{"n1", {0, 1}, 2, {}}, {"n2", {}, 2, {}}},
                       .apps = {{{"./dynamic", "child"}, {"A=1"}, "/tmp", 2}},
                       .env = {"OMPI_MCA_x=1"},
                       .tmpdir = "/tmp/j"},
               2, 4, "mpilaunch-j-1", 0},
      ChildJob{
          JobSpec{.job_id = "j", .nspace = "kvs-1-job2", .serve_pmix = false, .serve_pmi = true},
          2,
          3,
          "kvs-1",
          1,
          {"PARENT_ROOT_PORT_NAME=p"}},
      NamePublish{"ns",
                  0,
                  NameRange::Session,
                  NamePersistence::FirstRead,
                  {{"port:accept", NameFormat::Text, bytes("addr")},
                   {"n", NameFormat::PmixValue, bytes("\x01\x02")}}},
      NamePublish{"ns", 3, NameRange::Node, NamePersistence::App, {}},
      NameLookup{"ns", 1, NameRange::Namespace, {"port:connect", "b"}, 1, 600'000},
      NameLookup{},
      NameUnpublish{"ns", 2, NameRange::Process, {"svc"}},
      NameUnpublish{},
      NameReply{NameStatus::TimedOut, {}},
      NameReply{NameStatus::Ok, {{"ns", 4, {"svc", NameFormat::Text, bytes("p")}}}},
  };
  for (const Message& m : messages) {
    CAPTURE(static_cast<int>(type_of(m)));
    const Envelope env = round_trip(m, 17, 4);
    CHECK(env.message == m);
    CHECK(env.id == 17);
    CHECK(env.refers_to == 4);
  }
}

TEST_CASE("a NodeStacks count beyond its body is malformed, not an allocation") {
  auto wire = encode(NodeStacks{{{1, 2, "gdb", "text", ""}}});
  wire[kHeaderBytes + 3] = std::byte{0x7f};  // count 0x7f000001
  auto frame = decode_frame(wire);
  REQUIRE(frame.has_value());
  REQUIRE(frame.value().has_value());
  CHECK_FALSE(decode_message(*frame.value()).has_value());
}

TEST_CASE("name messages: a range, persistence or status past the last is malformed") {
  auto check_bad = [](std::vector<std::byte> wire, std::size_t at) {
    wire[at] = std::byte{0x09};
    auto frame = decode_frame(wire);
    REQUIRE(frame.has_value());
    REQUIRE(frame.value().has_value());
    CHECK_FALSE(decode_message(*frame.value()).has_value());
  };
  // Bodies: nspace "n" (4 + 1 bytes), rank (4), then the range byte; a reply starts with status.
  check_bad(encode(NamePublish{"n", 0, NameRange::Session, NamePersistence::App, {}}),
            kHeaderBytes + 9);
  check_bad(encode(NamePublish{"n", 0, NameRange::Session, NamePersistence::App, {}}),
            kHeaderBytes + 10);
  check_bad(encode(NameLookup{"n", 0, NameRange::Session, {"k"}, 0, 0}), kHeaderBytes + 9);
  check_bad(encode(NameReply{}), kHeaderBytes);
  // Types in the reserved gap (22-37) are unknown.
  auto wire = encode(NameReply{});
  wire[2] = std::byte{30};
  CHECK_FALSE(decode_frame(wire).has_value());
}

TEST_CASE("a partial frame asks for more bytes, byte by byte") {
  const auto wire = encode(RankOutput{0, Stream::Stdout, bytes("0123456789")});
  for (std::size_t n = 0; n < wire.size(); ++n) {
    auto frame = decode_frame(std::span(wire).first(n));
    REQUIRE(frame.has_value());
    CHECK_FALSE(frame.value().has_value());
  }
  auto full = decode_frame(wire);
  REQUIRE(full.has_value());
  CHECK(full.value().has_value());
}

TEST_CASE("a frame of another protocol version is a named mismatch") {
  auto wire = encode(Shutdown{});
  wire[0] = std::byte{kProtocolVersion + 1};
  auto frame = decode_frame(wire);
  REQUIRE_FALSE(frame.has_value());
  CHECK(frame.error().kind == ErrorKind::ProtocolMismatch);
  CHECK(frame.error().detail.find(mpilaunch::format("version {}", kProtocolVersion + 1)) !=
        std::string::npos);
}

TEST_CASE("unknown types, oversized and trailing bodies are malformed frames") {
  auto unknown = encode(Shutdown{});
  unknown[2] = std::byte{0x7f};
  CHECK(decode_frame(unknown).error().kind == ErrorKind::MalformedFrame);

  auto huge = encode(Shutdown{});
  huge[15] = std::byte{0x7f};
  CHECK(decode_frame(huge).error().kind == ErrorKind::MalformedFrame);

  // A Kill body with one extra byte: the header is fine, the body does not parse exactly.
  auto extra = encode(Kill{9});
  extra.push_back(std::byte{0});
  extra[12] = std::byte{5};
  auto frame = decode_frame(extra);
  REQUIRE(frame.has_value());
  REQUIRE(frame.value().has_value());
  CHECK(decode_message(*frame.value()).error().kind == ErrorKind::MalformedFrame);

  // A body cut short inside a length-prefixed string.
  auto cut = encode(Spawn{"namespace"});
  cut.resize(cut.size() - 3);
  cut[12] = std::byte{static_cast<unsigned char>(cut.size() - kHeaderBytes)};
  frame = decode_frame(cut);
  REQUIRE(frame.has_value());
  REQUIRE(frame.value().has_value());
  CHECK(decode_message(*frame.value()).error().kind == ErrorKind::MalformedFrame);
}

TEST_CASE("an invalid enum value inside a body is rejected") {
  auto wire = encode(RankOutput{0, Stream::Stdout, {}});
  wire[kHeaderBytes + 4] = std::byte{9};  // the stream byte
  auto frame = decode_frame(wire);
  REQUIRE(frame.has_value());
  CHECK_FALSE(decode_message(*frame.value()).has_value());
}

TEST_CASE("encode_rank_output writes exactly the bytes of encode(RankOutput)") {
  std::vector<std::byte> data(300'000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 7);
  for (const Stream s : {Stream::Stdout, Stream::Stderr}) {
    const auto direct = encode_rank_output(5, s, data);
    CHECK(direct == encode(RankOutput{5, s, data}));
    auto frame = decode_frame(direct);
    REQUIRE(frame.has_value());
    REQUIRE(frame.value().has_value());
    auto envelope = decode_message(*frame.value());
    REQUIRE(envelope.has_value());
    const auto* out = std::get_if<RankOutput>(&envelope.value().message);
    REQUIRE(out != nullptr);
    CHECK(out->data == data);
  }
  CHECK(encode_rank_output(0, Stream::Stdout, {}) == encode(RankOutput{0, Stream::Stdout, {}}));
}

// The fuzz target starts from these seeds; seeds of an older protocol version would stop at the
// version check and leave the message decoders unexplored.
TEST_CASE("the protocol fuzz seeds are whole frames of this version, every type among them") {
  const std::filesystem::path dir =
      std::filesystem::path(MPILAUNCH_TEST_DATA_DIR).parent_path() / "fuzz/corpus/protocol";
  std::set<MsgType> types;
  int seeds = 0;
  for (const auto& file : std::filesystem::directory_iterator(dir)) {
    CAPTURE(file.path().string());
    std::ifstream in(file.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::span<const std::byte> rest(reinterpret_cast<const std::byte*>(text.data()), text.size());
    if (text.starts_with(handshake::kMagic)) {
      const auto hello = handshake::scan_for_hello(rest);
      REQUIRE(hello.has_value());
      REQUIRE(hello.value().has_value());
      rest = rest.subspan(hello.value()->consumed);
    }
    while (!rest.empty()) {
      auto frame = decode_frame(rest);
      REQUIRE(frame.has_value());
      REQUIRE(frame.value().has_value());
      auto envelope = decode_message(*frame.value());
      REQUIRE_MESSAGE(envelope.has_value(), envelope.error().detail);
      types.insert(type_of(envelope->message));
      rest = rest.subspan(frame.value()->wire_size());
    }
    ++seeds;
  }
  CHECK(seeds > 0);
  CHECK(types.size() == std::variant_size_v<Message>);
}
