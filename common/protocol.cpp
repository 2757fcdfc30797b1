#include "common/protocol.hpp"

#include <algorithm>

#include "common/text_format.hpp"

#include "common/codec.hpp"

namespace mpilaunch::protocol {
namespace {

using codec::Reader;
using codec::Writer;

void put_opt(Writer& w, const std::optional<int>& v) {
  w.boolean(v.has_value());
  if (v) w.i32(*v);
}
std::optional<int> get_opt(Reader& r) {
  if (!r.boolean()) return std::nullopt;
  return r.i32();
}

void put_error(Writer& w, const Error& e) {
  w.u16(static_cast<std::uint16_t>(e.kind));
  w.str(e.host);
  put_opt(w, e.rank);
  put_opt(w, e.exit_code);
  put_opt(w, e.signal);
  put_opt(w, e.pid);
  put_opt(w, e.count);
  w.str(e.phase);
  w.str(e.executable);
  w.str(e.detail);
  w.strings(e.evidence);
}
Error get_error(Reader& r) {
  Error e;
  const std::uint16_t kind = r.u16();
  // A kind this side does not know (a newer peer's) reads as Unknown.
  e.kind = kind <= static_cast<std::uint16_t>(kLastErrorKind) ? static_cast<ErrorKind>(kind)
                                                              : ErrorKind::Unknown;
  e.host = r.str();
  e.rank = get_opt(r);
  e.exit_code = get_opt(r);
  e.signal = get_opt(r);
  e.pid = get_opt(r);
  e.count = get_opt(r);
  e.phase = r.str();
  e.executable = r.str();
  e.detail = r.str();
  e.evidence = r.strings();
  return e;
}

// One encode overload per message; the field order here is the wire order of docs/protocol.md.
void put(Writer& w, const LauncherHello& m) {
  w.str(m.launcher_version);
  w.str(m.token);
  w.u32(m.node_index);
  w.str(m.node_name);
}
void put(Writer& w, const AgentHello& m) {
  w.str(m.agent_version);
  w.str(m.os_hostname);
  w.i32(m.pid);
  w.u32(m.cpus);
  w.strings(m.transport_facts);
  w.i32(m.login_ms);
  w.u32(static_cast<std::uint32_t>(m.topology.pus.size()));
  for (const TopologyPu& pu : m.topology.pus) {
    w.u32(pu.os_index);
    for (const std::int32_t v : {pu.core, pu.l1, pu.l2, pu.l3, pu.numa, pu.socket}) w.i32(v);
  }
}
void put(Writer& w, const JobSpec& m) {
  w.str(m.job_id);
  w.str(m.nspace);
  w.u32(m.attempt);
  w.u32(static_cast<std::uint32_t>(m.nodes.size()));
  for (const NodeRanks& node : m.nodes) {
    w.str(node.name);
    w.u32(static_cast<std::uint32_t>(node.ranks.size()));
    for (std::uint32_t rank : node.ranks) w.u32(rank);
    w.u32(node.slots);
    w.strings(node.cpus);
    w.boolean(node.told_bound);
  }
  w.u32(static_cast<std::uint32_t>(m.apps.size()));
  for (const AppContext& app : m.apps) {
    w.strings(app.argv);
    w.strings(app.env);
    w.str(app.wdir);
    w.u32(app.num_procs);
    w.str(app.exec_path);
  }
  w.strings(m.env);
  w.str(m.tmpdir);
  w.boolean(m.virtual_nodes);
  w.boolean(m.serve_pmix);
  w.boolean(m.serve_pmi);
  w.u32(m.universe_size);
  w.i32(m.stdin_rank);
  w.boolean(m.rank_stdout_pty);
  w.str(m.prefix);
  w.boolean(m.index_argv_by_rank);
  w.boolean(m.cpus_not_bound);
}
void put(Writer& w, const SpawnRequest& m) {
  w.str(m.nspace);
  w.u32(m.rank);
  w.u32(static_cast<std::uint32_t>(m.apps.size()));
  for (const SpawnApp& app : m.apps) {
    w.strings(app.argv);
    w.strings(app.env);
    w.str(app.wdir);
    w.u32(app.maxprocs);
    w.str(app.host);
    w.str(app.hostfile);
    w.str(app.add_host);
  }
  w.str(m.map_by);
  w.boolean(m.pmi);
  w.strings(m.preput);
}
void put(Writer& w, const SpawnReply& m) {
  w.i32(m.status);
  w.str(m.nspace);
}
void put(Writer& w, const ChildJob& m) {
  put(w, m.spec);
  w.u32(m.job_number);
  w.u32(m.first_index);
  w.str(m.parent_nspace);
  w.u32(m.parent_rank);
  w.strings(m.preput);
}
void put(Writer& w, const Spawn& m) {
  w.str(m.nspace);
}
void put(Writer& w, const RankStarted& m) {
  w.u32(m.rank);
  w.i32(m.pid);
  w.boolean(m.streams_passed);
}
void put(Writer& w, const RankOutput& m) {
  w.u32(m.rank);
  w.u8(static_cast<std::uint8_t>(m.stream));
  w.bytes(m.data);
}
void put(Writer& w, const FenceContribute& m) {
  w.str(m.nspace);
  w.str(m.procs);
  w.u32(m.seq);
  w.i32(m.status);
  w.boolean(m.collect);
  w.bytes(m.data);
}
void put(Writer& w, const FenceRelease& m) {
  w.str(m.nspace);
  w.str(m.procs);
  w.u32(m.seq);
  w.i32(m.status);
  w.bytes(m.data);
}
void put(Writer& w, const DmodexRequest& m) {
  w.str(m.nspace);
  w.u32(m.rank);
}
void put(Writer& w, const DmodexReply& m) {
  w.i32(m.status);
  w.bytes(m.data);
}
void put(Writer& w, const RankExited& m) {
  w.u32(m.rank);
  w.i32(m.pid);
  if (const auto* exited = std::get_if<Exited>(&m.reason)) {
    w.u8(0);
    w.i32(exited->code);
  } else {
    const auto& signaled = std::get<Signaled>(m.reason);
    w.u8(signaled.core_dumped ? 2 : 1);
    w.i32(signaled.signal);
  }
  put_opt(w, m.abort_status);
  w.boolean(m.connected);
  w.boolean(m.finalized);
  w.boolean(m.ended_before_kill);
}
void put(Writer& w, const SpawnFailed& m) {
  put_error(w, m.error);
}
void put(Writer& w, const Kill& m) {
  w.i32(m.signal);
}
void put(Writer&, const Shutdown&) {}
void put(Writer& w, const AgentError& m) {
  put_error(w, m.error);
}
void put(Writer&, const AgentBye&) {}
void put(Writer& w, const RankConnected& m) {
  w.u32(m.rank);
}
void put(Writer& w, const StdinData& m) {
  w.bytes(m.data);
  w.boolean(m.eof);
}
void put(Writer& w, const StdinCredit& m) {
  w.u32(m.bytes);
}
void put(Writer& w, const OutputHeld& m) {
  w.u32(m.rank);
  w.boolean(m.stdout_held);
  w.boolean(m.stderr_held);
}
void put(Writer& w, const CollectStacks& m) {
  w.u32(m.deadline_ms);
}
void put(Writer& w, const NodeStacks& m) {
  w.u32(static_cast<std::uint32_t>(m.stacks.size()));
  for (const RankStack& s : m.stacks) {
    w.u32(s.rank);
    w.i32(s.pid);
    w.str(s.tool);
    w.str(s.text);
    w.str(s.note);
  }
}

JobSpec get_job_spec(Reader& r) {
  JobSpec m;
  m.job_id = r.str();
  m.nspace = r.str();
  m.attempt = r.u32();
  const std::uint32_t nodes = r.u32();
  for (std::uint32_t i = 0; i < nodes && r.ok(); ++i) {
    NodeRanks node;
    node.name = r.str();
    const std::uint32_t count = r.u32();
    if (count > r.remaining() / 4) {
      r.reject();
      break;
    }
    for (std::uint32_t k = 0; k < count && r.ok(); ++k) node.ranks.push_back(r.u32());
    node.slots = r.u32();
    node.cpus = r.strings();
    node.told_bound = r.boolean();
    m.nodes.push_back(std::move(node));
  }
  const std::uint32_t apps = r.u32();
  for (std::uint32_t i = 0; i < apps && r.ok(); ++i) {
    AppContext app;
    app.argv = r.strings();
    app.env = r.strings();
    app.wdir = r.str();
    app.num_procs = r.u32();
    app.exec_path = r.str();
    m.apps.push_back(std::move(app));
  }
  m.env = r.strings();
  m.tmpdir = r.str();
  m.virtual_nodes = r.boolean();
  m.serve_pmix = r.boolean();
  m.serve_pmi = r.boolean();
  m.universe_size = r.u32();
  m.stdin_rank = r.i32();
  m.rank_stdout_pty = r.boolean();
  m.prefix = r.str();
  m.index_argv_by_rank = r.boolean();
  m.cpus_not_bound = r.boolean();
  return m;
}

void put(Writer& w, const NameEntry& e) {
  w.str(e.key);
  w.u8(static_cast<std::uint8_t>(e.format));
  w.bytes(e.value);
}
void put(Writer& w, const NamePublish& m) {
  w.str(m.nspace);
  w.u32(m.rank);
  w.u8(static_cast<std::uint8_t>(m.range));
  w.u8(static_cast<std::uint8_t>(m.persistence));
  w.u32(static_cast<std::uint32_t>(m.entries.size()));
  for (const NameEntry& e : m.entries) put(w, e);
}
void put(Writer& w, const NameLookup& m) {
  w.str(m.nspace);
  w.u32(m.rank);
  w.u8(static_cast<std::uint8_t>(m.range));
  w.strings(m.keys);
  w.u32(m.wait);
  w.u32(m.timeout_ms);
}
void put(Writer& w, const NameUnpublish& m) {
  w.str(m.nspace);
  w.u32(m.rank);
  w.u8(static_cast<std::uint8_t>(m.range));
  w.strings(m.keys);
}
void put(Writer& w, const NameReply& m) {
  w.u8(static_cast<std::uint8_t>(m.status));
  w.u32(static_cast<std::uint32_t>(m.found.size()));
  for (const NameFound& f : m.found) {
    w.str(f.nspace);
    w.u32(f.rank);
    put(w, f.entry);
  }
}

// The name service's enums: a value past the last one is malformed.
template <class Enum>
Enum get_enum(Reader& r, Enum last) {
  const std::uint8_t v = r.u8();
  if (v > static_cast<std::uint8_t>(last)) r.reject();
  return r.ok() ? static_cast<Enum>(v) : Enum{};
}
NameEntry get_name_entry(Reader& r) {
  NameEntry e;
  e.key = r.str();
  e.format = get_enum(r, NameFormat::PmixValue);
  e.value = r.bytes();
  return e;
}

// One decode function per message type.
Message get(Reader& r, MsgType type) {
  switch (type) {
    case MsgType::LauncherHello: {
      LauncherHello m;
      m.launcher_version = r.str();
      m.token = r.str();
      m.node_index = r.u32();
      m.node_name = r.str();
      return m;
    }
    case MsgType::AgentHello: {
      AgentHello m;
      m.agent_version = r.str();
      m.os_hostname = r.str();
      m.pid = r.i32();
      m.cpus = r.u32();
      m.transport_facts = r.strings();
      m.login_ms = r.i32();
      const std::uint32_t pus = r.u32();
      if (pus > r.remaining() / 28) {
        r.reject();
        return m;
      }
      for (std::uint32_t i = 0; i < pus && r.ok(); ++i) {
        TopologyPu pu;
        pu.os_index = r.u32();
        for (std::int32_t* v : {&pu.core, &pu.l1, &pu.l2, &pu.l3, &pu.numa, &pu.socket})
          *v = r.i32();
        m.topology.pus.push_back(pu);
      }
      return m;
    }
    case MsgType::JobSpec:
      return get_job_spec(r);
    case MsgType::Spawn:
      return Spawn{r.str()};
    case MsgType::RankStarted: {
      RankStarted m;
      m.rank = r.u32();
      m.pid = r.i32();
      m.streams_passed = r.boolean();
      return m;
    }
    case MsgType::RankOutput: {
      RankOutput m;
      m.rank = r.u32();
      const std::uint8_t stream = r.u8();
      if (stream != 1 && stream != 2) r.reject();
      m.stream = static_cast<Stream>(stream);
      m.data = r.bytes();
      return m;
    }
    case MsgType::FenceContribute: {
      FenceContribute m;
      m.nspace = r.str();
      m.procs = r.str();
      m.seq = r.u32();
      m.status = r.i32();
      m.collect = r.boolean();
      m.data = r.bytes();
      return m;
    }
    case MsgType::FenceRelease: {
      FenceRelease m;
      m.nspace = r.str();
      m.procs = r.str();
      m.seq = r.u32();
      m.status = r.i32();
      m.data = r.bytes();
      return m;
    }
    case MsgType::DmodexRequest: {
      DmodexRequest m;
      m.nspace = r.str();
      m.rank = r.u32();
      return m;
    }
    case MsgType::DmodexReply: {
      DmodexReply m;
      m.status = r.i32();
      m.data = r.bytes();
      return m;
    }
    case MsgType::RankExited: {
      RankExited m;
      m.rank = r.u32();
      m.pid = r.i32();
      const std::uint8_t how = r.u8();
      const std::int32_t value = r.i32();
      if (how == 0) {
        m.reason = Exited{value};
      } else if (how == 1 || how == 2) {
        m.reason = Signaled{value, how == 2};
      } else {
        r.reject();
      }
      m.abort_status = get_opt(r);
      m.connected = r.boolean();
      m.finalized = r.boolean();
      m.ended_before_kill = r.boolean();
      return m;
    }
    case MsgType::SpawnFailed:
      return SpawnFailed{get_error(r)};
    case MsgType::Kill:
      return Kill{r.i32()};
    case MsgType::Shutdown:
      return Shutdown{};
    case MsgType::AgentError:
      return AgentError{get_error(r)};
    case MsgType::AgentBye:
      return AgentBye{};
    case MsgType::RankConnected:
      return RankConnected{r.u32()};
    case MsgType::StdinData: {
      StdinData m;
      m.data = r.bytes();
      m.eof = r.boolean();
      return m;
    }
    case MsgType::StdinCredit:
      return StdinCredit{r.u32()};
    case MsgType::OutputHeld: {
      OutputHeld m;
      m.rank = r.u32();
      m.stdout_held = r.boolean();
      m.stderr_held = r.boolean();
      return m;
    }
    case MsgType::CollectStacks:
      return CollectStacks{r.u32()};
    case MsgType::SpawnRequest: {
      SpawnRequest m;
      m.nspace = r.str();
      m.rank = r.u32();
      const std::uint32_t apps = r.u32();
      for (std::uint32_t i = 0; i < apps && r.ok(); ++i) {
        SpawnApp app;
        app.argv = r.strings();
        app.env = r.strings();
        app.wdir = r.str();
        app.maxprocs = r.u32();
        app.host = r.str();
        app.hostfile = r.str();
        app.add_host = r.str();
        m.apps.push_back(std::move(app));
      }
      m.map_by = r.str();
      m.pmi = r.boolean();
      m.preput = r.strings();
      return m;
    }
    case MsgType::SpawnReply: {
      SpawnReply m;
      m.status = r.i32();
      m.nspace = r.str();
      return m;
    }
    case MsgType::ChildJob: {
      ChildJob m;
      m.spec = get_job_spec(r);
      m.job_number = r.u32();
      m.first_index = r.u32();
      m.parent_nspace = r.str();
      m.parent_rank = r.u32();
      m.preput = r.strings();
      return m;
    }
    case MsgType::NodeStacks: {
      NodeStacks m;
      const std::uint32_t n = r.u32();
      // Each entry needs at least 20 bytes, so a count larger than that is malformed.
      if (n > r.remaining() / 20) {
        r.reject();
        return m;
      }
      m.stacks.resize(n);
      for (RankStack& s : m.stacks) {
        s.rank = r.u32();
        s.pid = r.i32();
        s.tool = r.str();
        s.text = r.str();
        s.note = r.str();
      }
      return m;
    }
    case MsgType::NamePublish: {
      NamePublish m;
      m.nspace = r.str();
      m.rank = r.u32();
      m.range = get_enum(r, NameRange::Process);
      m.persistence = get_enum(r, NamePersistence::FirstRead);
      const std::uint32_t n = r.u32();
      // Each entry needs at least 9 bytes.
      if (n > r.remaining() / 9) {
        r.reject();
        return m;
      }
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) m.entries.push_back(get_name_entry(r));
      return m;
    }
    case MsgType::NameLookup: {
      NameLookup m;
      m.nspace = r.str();
      m.rank = r.u32();
      m.range = get_enum(r, NameRange::Process);
      m.keys = r.strings();
      m.wait = r.u32();
      m.timeout_ms = r.u32();
      return m;
    }
    case MsgType::NameUnpublish: {
      NameUnpublish m;
      m.nspace = r.str();
      m.rank = r.u32();
      m.range = get_enum(r, NameRange::Process);
      m.keys = r.strings();
      return m;
    }
    case MsgType::NameReply: {
      NameReply m;
      m.status = get_enum(r, NameStatus::BadRequest);
      const std::uint32_t n = r.u32();
      // Each entry needs at least 17 bytes.
      if (n > r.remaining() / 17) {
        r.reject();
        return m;
      }
      for (std::uint32_t i = 0; i < n && r.ok(); ++i) {
        NameFound f;
        f.nspace = r.str();
        f.rank = r.u32();
        f.entry = get_name_entry(r);
        m.found.push_back(std::move(f));
      }
      return m;
    }
  }
  return AgentBye{};
}

bool is_known(std::uint16_t type) {
  return std::ranges::any_of(kMessageTypes,
                             [type](MsgType t) { return static_cast<std::uint16_t>(t) == type; });
}

std::uint32_t read_u32(std::span<const std::byte> in, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 0; i < 4; ++i)
    v |= std::uint32_t(std::to_integer<std::uint8_t>(in[at + i])) << (8 * i);
  return v;
}

}  // namespace

MsgType type_of(const Message& message) {
  return kMessageTypes[message.index()];
}

namespace {

// One frame: the header, then whatever `body` writes, then the body size patched in.
template <class Body>
std::vector<std::byte> frame_of(MsgType type, std::uint32_t id, std::uint32_t refers_to,
                                std::size_t body_hint, Body&& body) {
  Writer w;
  w.reserve(kHeaderBytes + body_hint);
  w.u16(kProtocolVersion);
  w.u16(static_cast<std::uint16_t>(type));
  w.u32(id);
  w.u32(refers_to);
  w.u32(0);  // body size, patched below
  body(w);
  std::vector<std::byte>& out = w.buffer();
  const auto size = static_cast<std::uint32_t>(out.size() - kHeaderBytes);
  for (int i = 0; i < 4; ++i) out[12 + i] = static_cast<std::byte>((size >> (8 * i)) & 0xff);
  return std::move(out);
}

}  // namespace

std::vector<std::byte> encode(const Message& message, std::uint32_t id, std::uint32_t refers_to) {
  return frame_of(type_of(message), id, refers_to, 64,
                  [&](Writer& w) { std::visit([&](const auto& m) { put(w, m); }, message); });
}

std::vector<std::byte> encode_rank_output(std::uint32_t rank, Stream stream,
                                          std::span<const std::byte> data) {
  return frame_of(MsgType::RankOutput, 0, 0, 9 + data.size(), [&](Writer& w) {
    w.u32(rank);
    w.u8(static_cast<std::uint8_t>(stream));
    w.bytes(data);
  });
}

Result<std::optional<Frame>> decode_frame(std::span<const std::byte> in) {
  if (in.size() < kHeaderBytes) return std::optional<Frame>{};
  Header h;
  h.version = static_cast<std::uint16_t>(std::to_integer<std::uint8_t>(in[0]) |
                                         (std::to_integer<std::uint8_t>(in[1]) << 8));
  const auto type = static_cast<std::uint16_t>(std::to_integer<std::uint8_t>(in[2]) |
                                               (std::to_integer<std::uint8_t>(in[3]) << 8));
  h.id = read_u32(in, 4);
  h.refers_to = read_u32(in, 8);
  h.body_bytes = read_u32(in, 12);
  if (h.version != kProtocolVersion)
    return Error{.kind = ErrorKind::ProtocolMismatch,
                 .detail = mpilaunch::format("peer speaks protocol version {}, this side {}",
                                             h.version, kProtocolVersion)};
  if (!is_known(type) || h.body_bytes > kMaxBodyBytes)
    return Error{.kind = ErrorKind::MalformedFrame,
                 .detail = mpilaunch::format("frame type {}, {} bytes", type, h.body_bytes)};
  h.type = static_cast<MsgType>(type);
  if (in.size() - kHeaderBytes < h.body_bytes) return std::optional<Frame>{};
  const auto body = in.subspan(kHeaderBytes, h.body_bytes);
  return std::optional<Frame>{Frame{h, {body.begin(), body.end()}}};
}

Result<Envelope> decode_message(const Frame& frame) {
  Reader r(frame.body);
  Message message = get(r, frame.header.type);
  if (!r.done())
    return Error{
        .kind = ErrorKind::MalformedFrame,
        .detail = mpilaunch::format("body of frame type {} ({} bytes) does not parse",
                                    static_cast<int>(frame.header.type), frame.body.size())};
  return Envelope{std::move(message), frame.header.id, frame.header.refers_to};
}

}  // namespace mpilaunch::protocol
