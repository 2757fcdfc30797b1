#include "common/pmi_wire.hpp"

#include <algorithm>

#include "common/app_contexts.hpp"
#include "common/codec.hpp"
#include "common/text.hpp"

namespace mpilaunch::pmi {
namespace {
// A PMI-1 spawn's lines per command and commands per call: MPICH sends a dozen lines plus one
// per argument and info key; more is a broken client, not a program.
constexpr std::size_t kMaxSpawnLines = 4096;
constexpr std::size_t kMaxSpawnSegments = 256;
}  // namespace

std::optional<std::string_view> Command::get(std::string_view key) const {
  for (const auto& [k, v] : args)
    if (k == key) return std::string_view(v);
  return std::nullopt;
}

ParseOutcome parse_pmi1_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  if (line.size() > kMaxPmi1Line) return {std::nullopt, "line longer than 1024 bytes"};
  Command c;
  bool first = true;
  while (!line.empty()) {
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string_view::npos) break;
    line.remove_prefix(start);
    const std::size_t eq = line.find('=');
    const std::size_t sp = line.find(' ');
    if (eq == std::string_view::npos || (sp != std::string_view::npos && sp < eq))
      return {std::nullopt, "expected key=value"};
    const std::string_view key = line.substr(0, eq);
    if (key.empty()) return {std::nullopt, "empty key"};
    std::string_view value;
    // value= (put, get_result) and message= (abort: MPICH 4.2 sends "cmd=abort exitcode=N
    // message=TEXT", TEXT with spaces) are the last fields of their lines.
    if (key == "value" || key == "message") {
      value = line.substr(eq + 1);
      line = {};
    } else {
      const std::size_t end = line.find(' ', eq);
      value = line.substr(eq + 1, end == std::string_view::npos ? end : end - eq - 1);
      line = end == std::string_view::npos ? std::string_view{} : line.substr(end);
    }
    if (first) {
      if (key != "cmd" && key != "mcmd") return {std::nullopt, "first field must be cmd="};
      if (value.empty()) return {std::nullopt, "empty cmd"};
      c.cmd = value;
      if (key == "mcmd") c.args.emplace_back("mcmd", "1");
      first = false;
    } else {
      c.args.emplace_back(std::string(key), std::string(value));
    }
  }
  if (first) return {std::nullopt, "empty line"};
  return {std::move(c), {}};
}

std::string format_pmi1(const Command& c) {
  std::string s = "cmd=" + c.cmd;
  for (const auto& [k, v] : c.args) s += " " + k + "=" + v;
  s += '\n';
  return s;
}

ParseOutcome parse_pmi2_body(std::string_view body) {
  Command c;
  std::vector<std::pair<std::string, std::string>> fields;
  std::string cur;
  std::string key;
  bool have_key = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char ch = body[i];
    if (ch == ';') {
      if (i + 1 < body.size() && body[i + 1] == ';') {
        cur += ';';
        ++i;
        continue;
      }
      if (!have_key) return {std::nullopt, "expected key=value;"};
      fields.emplace_back(std::move(key), std::move(cur));
      key.clear();
      cur.clear();
      have_key = false;
    } else if (ch == '=' && !have_key) {
      if (cur.empty()) return {std::nullopt, "empty key"};
      key = std::move(cur);
      cur.clear();
      have_key = true;
    } else {
      cur += ch;
    }
  }
  if (have_key || !cur.empty()) return {std::nullopt, "missing final ';'"};
  if (fields.empty() || fields.front().first != "cmd" || fields.front().second.empty())
    return {std::nullopt, "first field must be cmd="};
  c.cmd = fields.front().second;
  c.args.assign(fields.begin() + 1, fields.end());
  return {std::move(c), {}};
}

namespace {
std::string escape2(std::string_view v) {
  std::string s;
  for (char ch : v) {
    s += ch;
    if (ch == ';') s += ';';
  }
  return s;
}
}  // namespace

std::string format_pmi2(const Command& c) {
  std::string body = "cmd=" + escape2(c.cmd) + ";";
  for (const auto& [k, v] : c.args) body += escape2(k) + "=" + escape2(v) + ";";
  std::string len = std::to_string(body.size());
  return std::string(6 - std::min<std::size_t>(6, len.size()), ' ') + len + body;
}

int JobFacts::appnum_of(int rank) const {
  return rank < 0 ? 0
                  : static_cast<int>(context_of_rank(app_sizes, static_cast<std::uint64_t>(rank)));
}

std::string process_mapping(const std::vector<std::vector<std::uint32_t>>& nodes) {
  std::size_t size = 0;
  for (const auto& ranks : nodes) size += ranks.size();
  std::vector<std::size_t> node_of(size, nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n)
    for (std::uint32_t r : nodes[n]) {
      if (r >= size || node_of[r] != nodes.size()) return {};
      node_of[r] = n;
    }
  std::string text = "(vector";
  std::size_t r = 0;
  while (r < size) {
    // A block: `ppn` consecutive ranks on node s, the next `ppn` on s+1, and so on.
    const std::size_t start = node_of[r];
    std::size_t ppn = 0;
    while (r + ppn < size && node_of[r + ppn] == start) ++ppn;
    std::size_t count = 1;
    r += ppn;
    for (;;) {
      std::size_t run = 0;
      while (run < ppn && r + run < size && node_of[r + run] == start + count) ++run;
      if (run != ppn || (r + run < size && node_of[r + run] == start + count)) break;
      r += ppn;
      ++count;
    }
    text += ",(" + std::to_string(start) + "," + std::to_string(count) + "," + std::to_string(ppn) +
            ")";
  }
  text += ")";
  // MPICH keeps kvsname + key + value + 30 within a 1024-byte line.
  if (text.size() > 600) return {};
  return text;
}

std::vector<std::byte> encode_puts(const std::map<std::string, std::string>& puts) {
  codec::Writer w;
  for (const auto& [k, v] : puts) {
    w.str(k);
    w.str(v);
  }
  return std::move(w.buffer());
}

std::optional<std::map<std::string, std::string>> decode_puts(std::span<const std::byte> blob) {
  codec::Reader r(blob);
  std::map<std::string, std::string> puts;
  while (r.remaining() > 0) {
    std::string key = r.str();
    std::string value = r.str();
    if (!r.ok()) return std::nullopt;
    puts[std::move(key)] = std::move(value);
  }
  return puts;
}

ServerCore::ServerCore(JobFacts facts) : facts_(std::move(facts)), kvs_(facts_.preput) {
  for (int r : facts_.local_ranks) conns_[r];
}

bool ServerCore::connected(int rank) const {
  const auto it = conns_.find(rank);
  return it != conns_.end() && it->second.version != 0;
}

bool ServerCore::finalized(int rank) const {
  const auto it = conns_.find(rank);
  return it != conns_.end() && it->second.finalized;
}

void ServerCore::reply(int rank, const Conn& c, Command cmd, std::vector<Output>& out) {
  out.push_back(Output{.kind = Output::Kind::Reply,
                       .rank = rank,
                       .bytes = c.version == 2 ? format_pmi2(cmd) : format_pmi1(cmd)});
}

std::vector<Output> ServerCore::feed(int rank, std::string_view bytes) {
  std::vector<Output> out;
  const auto it = conns_.find(rank);
  if (it == conns_.end()) {
    out.push_back({.kind = Output::Kind::ProtocolError, .rank = rank, .bytes = "unknown rank"});
    return out;
  }
  Conn& c = it->second;
  if (c.dead) return out;
  c.buf.append(bytes);
  for (;;) {
    if (c.dead || c.finalized) break;
    ParseOutcome p;
    if (c.version == 2) {
      if (c.buf.size() < 6) break;
      // Six characters: the body's length, right-aligned with spaces.
      const std::string_view head = std::string_view(c.buf).substr(0, 6);
      const auto len = parse_int<std::size_t>(
          head.substr(std::min(head.find_first_not_of(' '), head.size())), 0, kMaxPmi2Message);
      if (!len) {
        c.dead = true;
        out.push_back({.kind = Output::Kind::ProtocolError,
                       .rank = rank,
                       .bytes = "bad PMI-2 length header"});
        break;
      }
      if (c.buf.size() < 6 + *len) break;
      p = parse_pmi2_body(std::string_view(c.buf).substr(6, *len));
      c.buf.erase(0, 6 + *len);
    } else {
      const std::size_t nl = c.buf.find('\n');
      if (nl == std::string::npos) {
        if (c.buf.size() > kMaxPmi1Line) {
          c.dead = true;
          out.push_back({.kind = Output::Kind::ProtocolError,
                         .rank = rank,
                         .bytes = "PMI-1 line longer than 1024 bytes"});
        }
        break;
      }
      const std::string line = c.buf.substr(0, nl);
      c.buf.erase(0, nl + 1);
      if (c.in_mcmd) {
        if (line == "endcmd") {
          c.in_mcmd = false;
          // MPI_Comm_spawn_multiple sends one segment per command and reads one reply.
          const auto& segment = c.spawn_segments.back();
          std::optional<int> total;
          std::optional<int> sofar;
          for (const auto& [k, v] : segment) {
            if (k == "totspawns") total = parse_int<int>(v);
            if (k == "spawnssofar") sofar = parse_int<int>(v);
          }
          if (!total || !sofar || *sofar >= *total ||
              c.spawn_segments.size() >= static_cast<std::size_t>(*total))
            spawn_request_v1(rank, c, out);
        } else if (const std::size_t eq = line.find('='); eq != std::string::npos && eq > 0) {
          // "argN=" values may hold spaces and '=': the line is one key and one value.
          auto& segment = c.spawn_segments.back();
          if (segment.size() >= kMaxSpawnLines) {
            c.dead = true;
            out.push_back({.kind = Output::Kind::ProtocolError,
                           .rank = rank,
                           .bytes = "PMI-1 spawn command of too many lines"});
            break;
          }
          segment.emplace_back(line.substr(0, eq), line.substr(eq + 1));
        }
        continue;
      }
      p = parse_pmi1_line(line);
    }
    if (!p.command) {
      Command err{c.version == 2 ? "error-response" : "error", {{"rc", "-1"}, {"msg", p.error}}};
      reply(rank, c, std::move(err), out);
      continue;
    }
    handle(rank, c, *p.command, out);
  }
  return out;
}

std::string dynamic_call(std::string_view command) {
  const std::string pmi = " (PMI " + std::string(command) + ")";
  if (command == "spawn") return "MPI_Comm_spawn" + pmi;
  return {};
}

void ServerCore::handle(int rank, Conn& c, const Command& cmd, std::vector<Output>& out) {
  const std::string& n = cmd.cmd;
  auto lookup = [&](std::string_view key) -> std::optional<std::string> {
    if (key == "PMI_process_mapping") return facts_.process_mapping;
    const auto f = kvs_.find(std::string(key));
    if (f == kvs_.end()) return std::nullopt;
    return f->second;
  };
  if (c.version != 2) {
    if (cmd.get("mcmd")) {
      if (c.spawn_segments.size() >= kMaxSpawnSegments) {
        c.spawn_segments.clear();
        reply(rank, c, {"spawn_result", {{"rc", "-1"}, {"msg", "too_many_commands"}}}, out);
      }
      c.spawn_segments.emplace_back();
      c.in_mcmd = true;
      return;
    }
    if (n == "init") {
      const auto v = cmd.get("pmi_version");
      if (v == "2") {
        reply(rank, c,
              {"response_to_init", {{"pmi_version", "2"}, {"pmi_subversion", "0"}, {"rc", "0"}}},
              out);
        c.version = 2;
      } else {
        c.version = 1;
        reply(rank, c,
              {"response_to_init", {{"pmi_version", "1"}, {"pmi_subversion", "1"}, {"rc", "0"}}},
              out);
      }
    } else if (n == "get_maxes") {
      reply(rank, c,
            {"maxes",
             {{"rc", "0"}, {"kvsname_max", "256"}, {"keylen_max", "64"}, {"vallen_max", "1024"}}},
            out);
    } else if (n == "get_appnum") {
      reply(rank, c, {"appnum", {{"rc", "0"}, {"appnum", std::to_string(facts_.appnum_of(rank))}}},
            out);
    } else if (n == "get_my_kvsname") {
      reply(rank, c, {"my_kvsname", {{"rc", "0"}, {"kvsname", facts_.kvsname}}}, out);
    } else if (n == "get_universe_size") {
      reply(rank, c, {"universe_size", {{"rc", "0"}, {"size", std::to_string(facts_.size)}}}, out);
    } else if (n == "put") {
      const auto k = cmd.get("key");
      const auto v = cmd.get("value");
      if (!k || k->empty() || !v) {
        reply(rank, c, {"put_result", {{"rc", "-1"}, {"msg", "put needs key= and value="}}}, out);
        return;
      }
      kvs_[std::string(*k)] = std::string(*v);
      pending_puts_[std::string(*k)] = std::string(*v);
      reply(rank, c, {"put_result", {{"rc", "0"}, {"msg", "success"}}}, out);
    } else if (n == "get") {
      const auto k = cmd.get("key");
      const auto v = k ? lookup(*k) : std::nullopt;
      if (v)
        reply(rank, c, {"get_result", {{"rc", "0"}, {"msg", "success"}, {"value", *v}}}, out);
      else
        reply(rank, c, {"get_result", {{"rc", "-1"}, {"msg", "key not found"}}}, out);
    } else if (n == "barrier_in") {
      c.in_barrier = true;
      maybe_barrier(out);
    } else if (n == "finalize") {
      c.finalized = true;
      reply(rank, c, {"finalize_ack", {}}, out);
      out.push_back({.kind = Output::Kind::Finalized, .rank = rank});
    } else if (n == "abort") {
      int code = 1;
      if (const auto e = cmd.get("exitcode")) code = parse_int<int>(*e).value_or(code);
      c.dead = true;
      out.push_back({.kind = Output::Kind::Abort, .rank = rank, .exit_code = code});
    } else if (n == "publish_name" || n == "lookup_name" || n == "unpublish_name") {
      name_request(rank, c, cmd, out);
    } else {
      reply(rank, c, {n + "_result", {{"rc", "-1"}, {"msg", "unsupported command"}}}, out);
      if (auto call = dynamic_call(n); !call.empty())
        out.push_back({.kind = Output::Kind::Unsupported, .rank = rank, .bytes = std::move(call)});
    }
    return;
  }
  // PMI-2
  if (n == "fullinit") {
    reply(rank, c,
          {"fullinit-response",
           {{"pmi-version", "2"},
            {"pmi-subversion", "0"},
            {"rank", std::to_string(rank)},
            {"size", std::to_string(facts_.size)},
            {"appnum", std::to_string(facts_.appnum_of(rank))},
            {"debugged", "FALSE"},
            {"pmiverbose", "FALSE"},
            {"rc", "0"}}},
          out);
  } else if (n == "job-getid") {
    reply(rank, c, {"job-getid-response", {{"jobid", facts_.kvsname}, {"rc", "0"}}}, out);
  } else if (n == "kvs-put") {
    const auto k = cmd.get("key");
    const auto v = cmd.get("value");
    if (!k || k->empty() || !v) {
      reply(rank, c, {"kvs-put-response", {{"rc", "-1"}, {"errmsg", "kvs-put needs key, value"}}},
            out);
      return;
    }
    kvs_[std::string(*k)] = std::string(*v);
    pending_puts_[std::string(*k)] = std::string(*v);
    reply(rank, c, {"kvs-put-response", {{"rc", "0"}}}, out);
  } else if (n == "kvs-get" || n == "info-getjobattr" || n == "info-getnodeattr") {
    const auto k = cmd.get("key");
    std::optional<std::string> v;
    if (k && n == "info-getnodeattr") {
      const auto f = node_attrs_.find(std::string(*k));
      if (f != node_attrs_.end()) v = f->second;
    } else if (k && (n == "kvs-get" || *k == "PMI_process_mapping")) {
      v = lookup(*k);
    }
    if (v)
      reply(rank, c, {n + "-response", {{"found", "TRUE"}, {"value", *v}, {"rc", "0"}}}, out);
    else
      reply(rank, c, {n + "-response", {{"found", "FALSE"}, {"rc", "0"}}}, out);
  } else if (n == "info-putnodeattr") {
    const auto k = cmd.get("key");
    const auto v = cmd.get("value");
    if (k && v) node_attrs_[std::string(*k)] = std::string(*v);
    reply(rank, c, {n + "-response", {{"rc", k && v ? "0" : "-1"}}}, out);
  } else if (n == "kvs-fence") {
    c.in_barrier = true;
    maybe_barrier(out);
  } else if (n == "finalize") {
    c.finalized = true;
    reply(rank, c, {"finalize-response", {{"rc", "0"}}}, out);
    out.push_back({.kind = Output::Kind::Finalized, .rank = rank});
  } else if (n == "abort") {
    c.dead = true;
    out.push_back({.kind = Output::Kind::Abort, .rank = rank, .exit_code = 1});
  } else if (n == "spawn") {
    spawn_request_v2(rank, c, cmd, out);
  } else if (n == "name-publish" || n == "name-lookup" || n == "name-unpublish") {
    name_request(rank, c, cmd, out);
  } else {
    reply(rank, c, {n + "-response", {{"rc", "-1"}, {"errmsg", "unsupported command"}}}, out);
    if (auto call = dynamic_call(n); !call.empty())
      out.push_back({.kind = Output::Kind::Unsupported, .rank = rank, .bytes = std::move(call)});
  }
}

void ServerCore::name_request(int rank, const Conn& c, const Command& cmd,
                              std::vector<Output>& out) {
  const std::string& n = cmd.cmd;
  const bool v2 = c.version == 2;
  const NameOp op = n == "publish_name" || n == "name-publish" ? NameOp::Publish
                    : n == "lookup_name" || n == "name-lookup" ? NameOp::Lookup
                                                               : NameOp::Unpublish;
  // PMI-1 names the service "service", PMI-2 "name"; both send the port as "port".
  const auto service = cmd.get(v2 ? "name" : "service");
  const auto port = cmd.get("port");
  if (!service || service->empty() || (op == NameOp::Publish && !port)) {
    const std::string why =
        op == NameOp::Publish ? "needs a service name and a port" : "needs a service name";
    if (v2)
      reply(rank, c, {n + "-response", {{"rc", "-1"}, {"errmsg", n + " " + why}}}, out);
    else
      reply(rank, c, {n.substr(0, n.find('_')) + "_result", {{"rc", "-1"}, {"msg", "bad_request"}}},
            out);
    return;
  }
  PendingName pending{
      .rank = rank, .version = c.version, .op = op, .service = std::string(*service)};
  if (const auto thrid = cmd.get("thrid"); v2 && thrid) pending.thrid = std::string(*thrid);
  // Hydra's rules: names are seen job-wide (every kvs of the job, spawned ones too) and live
  // until they are unpublished or the job ends; a lookup answers at once, found or not.
  const auto rank32 = static_cast<std::uint32_t>(rank);
  protocol::Message request;
  switch (op) {
    case NameOp::Publish: {
      protocol::NameEntry entry{.key = pending.service};
      const auto* p = reinterpret_cast<const std::byte*>(port->data());
      entry.value.assign(p, p + port->size());
      request = protocol::NamePublish{.nspace = facts_.kvsname,
                                      .rank = rank32,
                                      .range = protocol::NameRange::Session,
                                      .persistence = protocol::NamePersistence::Session,
                                      .entries = {std::move(entry)}};
      break;
    }
    case NameOp::Lookup:
      request = protocol::NameLookup{.nspace = facts_.kvsname,
                                     .rank = rank32,
                                     .range = protocol::NameRange::Session,
                                     .keys = {pending.service},
                                     .wait = 0,
                                     .timeout_ms = 0};
      break;
    case NameOp::Unpublish:
      request = protocol::NameUnpublish{.nspace = facts_.kvsname,
                                        .rank = rank32,
                                        .range = protocol::NameRange::Session,
                                        .keys = {pending.service}};
      break;
  }
  const std::uint32_t token = next_token_++;
  names_.emplace(token, std::move(pending));
  out.push_back({.kind = Output::Kind::NameRequest,
                 .rank = rank,
                 .request = std::move(request),
                 .token = token});
}

namespace {
// Why a name request failed, as one word for a PMI reply's msg= or errmsg=.
std::string name_failure(protocol::NameStatus status) {
  switch (status) {
    case protocol::NameStatus::Ok:
    case protocol::NameStatus::NotFound:
      return "service_not_found";
    case protocol::NameStatus::TimedOut:
      return "timed_out";
    case protocol::NameStatus::JobEnded:
      return "job_ended";
    case protocol::NameStatus::BadRequest:
      return "bad_request";
  }
  return "failed";
}
}  // namespace

template <typename Pending>
std::optional<ServerCore::Answered<Pending>> ServerCore::take_answered(
    std::map<std::uint32_t, Pending>& waiting, std::uint32_t token) {
  const auto it = waiting.find(token);
  if (it == waiting.end()) return std::nullopt;
  Pending pending = std::move(it->second);
  waiting.erase(it);
  const auto conn = conns_.find(pending.rank);
  if (conn == conns_.end() || conn->second.dead) return std::nullopt;
  return Answered<Pending>{std::move(pending), conn->second};
}

std::vector<Output> ServerCore::answer_name(std::uint32_t token,
                                            const protocol::NameReply& answer) {
  std::vector<Output> out;
  const auto taken = take_answered(names_, token);
  if (!taken) return out;
  const PendingName& pending = taken->pending;
  std::optional<std::string> port;
  if (answer.status == protocol::NameStatus::Ok && pending.op == NameOp::Lookup)
    for (const protocol::NameFound& f : answer.found)
      if (f.entry.key == pending.service && f.entry.format == protocol::NameFormat::Text) {
        port.emplace(reinterpret_cast<const char*>(f.entry.value.data()), f.entry.value.size());
        break;
      }
  const bool ok = answer.status == protocol::NameStatus::Ok &&
                  (pending.op != NameOp::Lookup || port.has_value());
  const std::string why = name_failure(ok ? protocol::NameStatus::Ok : answer.status);
  Command r;
  if (pending.version == 2) {
    r.cmd = pending.op == NameOp::Publish  ? "name-publish-response"
            : pending.op == NameOp::Lookup ? "name-lookup-response"
                                           : "name-unpublish-response";
    if (pending.thrid) r.args.emplace_back("thrid", *pending.thrid);
    if (pending.op == NameOp::Lookup) {
      // MPICH's client reads port=; value= is there for clients that read it instead.
      if (ok) {
        r.args.emplace_back("port", *port);
        r.args.emplace_back("value", *port);
      }
      r.args.emplace_back("found", ok ? "TRUE" : "FALSE");
    }
    r.args.emplace_back("rc", ok ? "0" : "1");
    if (!ok) r.args.emplace_back("errmsg", why);
  } else {
    r.cmd = pending.op == NameOp::Publish  ? "publish_result"
            : pending.op == NameOp::Lookup ? "lookup_result"
                                           : "unpublish_result";
    if (ok && port) r.args.emplace_back("port", *port);
    r.args.emplace_back("info", "ok");
    r.args.emplace_back("rc", ok ? "0" : "1");
    r.args.emplace_back("msg", ok ? "success" : why);
  }
  reply(pending.rank, taken->conn, std::move(r), out);
  return out;
}

namespace {
using Fields = std::vector<std::pair<std::string, std::string>>;

std::optional<std::string_view> field(const Fields& fields, std::string_view key) {
  for (const auto& [k, v] : fields)
    if (k == key) return std::string_view(v);
  return std::nullopt;
}

std::optional<int> int_field(const Fields& fields, std::string_view key) {
  const auto text = field(fields, key);
  return text ? parse_int<int>(*text) : std::nullopt;
}

// The key names of one spawn command: PMI-1's segment or PMI-2's run of fields.
struct SpawnKeys {
  std::string_view nprocs, execname, argc, info_count;
  std::string (*arg)(int);  // the key of argument i (0-based)
  std::string (*info_key)(int);
  std::string (*info_val)(int);
};
const SpawnKeys kSpawnKeys1{"nprocs",
                            "execname",
                            "argcnt",
                            "info_num",
                            [](int i) { return "arg" + std::to_string(i + 1); },
                            [](int i) { return "info_key_" + std::to_string(i); },
                            [](int i) { return "info_val_" + std::to_string(i); }};
const SpawnKeys kSpawnKeys2{"maxprocs",
                            "subcmd",
                            "argc",
                            "infokeycount",
                            [](int i) { return "argv" + std::to_string(i); },
                            [](int i) { return "infokey" + std::to_string(i); },
                            [](int i) { return "infoval" + std::to_string(i); }};

// One command of MPI_Comm_spawn(_multiple) as the launcher takes it; nullopt when a field is
// missing. Info keys as Hydra reads them: wdir, host/hosts, hostfile, path (the directory of
// the program); others are ignored.
std::optional<protocol::SpawnApp> spawn_app(const Fields& fields, const SpawnKeys& keys) {
  const auto nprocs = int_field(fields, keys.nprocs);
  const auto exec = field(fields, keys.execname);
  const int argc = int_field(fields, keys.argc).value_or(0);
  const int infos = int_field(fields, keys.info_count).value_or(0);
  if (!nprocs || *nprocs <= 0 || !exec || exec->empty() || argc < 0 || infos < 0) return {};
  protocol::SpawnApp app;
  app.maxprocs = static_cast<std::uint32_t>(*nprocs);
  std::string path;
  for (int i = 0; i < infos; ++i) {
    const auto key = field(fields, keys.info_key(i));
    const auto value = field(fields, keys.info_val(i));
    if (!key || !value) return {};
    if (*key == "wdir") app.wdir = *value;
    if (*key == "host" || *key == "hosts") app.host = *value;
    if (*key == "hostfile") app.hostfile = *value;
    if (*key == "path") path = *value;
  }
  app.argv.push_back(path.empty() ? std::string(*exec) : path + "/" + std::string(*exec));
  for (int i = 0; i < argc; ++i) {
    const auto arg = field(fields, keys.arg(i));
    if (!arg) return {};
    app.argv.emplace_back(*arg);
  }
  // As Hydra: the children's PMI_Init reports them spawned (MPI_Comm_get_parent).
  app.env.emplace_back("PMI_SPAWNED=1");
  return app;
}

// Preput keys: "KEY=value" for the SpawnRequest.
std::optional<std::vector<std::string>> preput_of(const Fields& fields, std::string_view count,
                                                  std::string (*key_of)(int),
                                                  std::string (*value_of)(int)) {
  std::vector<std::string> preput;
  const int n = int_field(fields, count).value_or(0);
  for (int i = 0; i < n; ++i) {
    const auto key = field(fields, key_of(i));
    const auto value = field(fields, value_of(i));
    if (!key || !value || key->empty()) return {};
    preput.push_back(std::string(*key) + "=" + std::string(*value));
  }
  return preput;
}
}  // namespace

void ServerCore::spawn_request_v1(int rank, Conn& c, std::vector<Output>& out) {
  const auto segments = std::move(c.spawn_segments);
  c.spawn_segments.clear();
  protocol::SpawnRequest request{
      .nspace = facts_.kvsname, .rank = static_cast<std::uint32_t>(rank), .pmi = true};
  for (const Fields& segment : segments) {
    auto app = spawn_app(segment, kSpawnKeys1);
    if (!app) {
      reply(rank, c, {"spawn_result", {{"rc", "-1"}, {"msg", "bad_spawn_command"}}}, out);
      return;
    }
    request.apps.push_back(std::move(*app));
  }
  auto preput = segments.empty() ? std::optional<std::vector<std::string>>{}
                                 : preput_of(
                                       segments.front(), "preput_num",
                                       [](int i) { return "preput_key_" + std::to_string(i); },
                                       [](int i) { return "preput_val_" + std::to_string(i); });
  if (!preput || request.apps.empty()) {
    reply(rank, c, {"spawn_result", {{"rc", "-1"}, {"msg", "bad_spawn_command"}}}, out);
    return;
  }
  request.preput = std::move(*preput);
  send_spawn(rank, c, std::move(request), std::nullopt, out);
}

void ServerCore::spawn_request_v2(int rank, const Conn& c, const Command& cmd,
                                  std::vector<Output>& out) {
  // ncmds=, preputcount=, ppkeyN=, ppvalN=, then per command subcmd=, maxprocs=, argc=, argvN=,
  // infokeycount=, infokeyN=, infovalN=: a command's fields run from its subcmd to the next.
  Fields common;
  std::vector<Fields> commands;
  for (const auto& kv : cmd.args) {
    if (kv.first == "subcmd") commands.emplace_back();
    (commands.empty() ? common : commands.back()).push_back(kv);
  }
  protocol::SpawnRequest request{
      .nspace = facts_.kvsname, .rank = static_cast<std::uint32_t>(rank), .pmi = true};
  const auto fail = [&] {
    reply(rank, c, {"spawn-response", {{"rc", "-1"}, {"errmsg", "bad spawn command"}}}, out);
  };
  for (const Fields& fields : commands) {
    auto app = spawn_app(fields, kSpawnKeys2);
    if (!app) return fail();
    request.apps.push_back(std::move(*app));
  }
  auto preput = preput_of(
      common, "preputcount", [](int i) { return "ppkey" + std::to_string(i); },
      [](int i) { return "ppval" + std::to_string(i); });
  const auto ncmds = int_field(common, "ncmds");
  if (!preput || request.apps.empty() || (ncmds && *ncmds != static_cast<int>(request.apps.size())))
    return fail();
  request.preput = std::move(*preput);
  std::optional<std::string> thrid;
  if (const auto t = cmd.get("thrid")) thrid = std::string(*t);
  send_spawn(rank, c, std::move(request), std::move(thrid), out);
}

void ServerCore::send_spawn(int rank, const Conn& c, protocol::SpawnRequest request,
                            std::optional<std::string> thrid, std::vector<Output>& out) {
  const std::uint32_t token = next_token_++;
  spawns_.emplace(token, PendingSpawn{rank, c.version, std::move(thrid)});
  out.push_back({.kind = Output::Kind::SpawnRequest,
                 .rank = rank,
                 .request = protocol::Message{std::move(request)},
                 .token = token});
}

std::vector<Output> ServerCore::answer_spawn(std::uint32_t token, int status,
                                             const std::string& nspace) {
  std::vector<Output> out;
  const auto taken = take_answered(spawns_, token);
  if (!taken) return out;
  const PendingSpawn& pending = taken->pending;
  if (pending.version == 2) {
    Command r{"spawn-response", {}};
    if (pending.thrid) r.args.emplace_back("thrid", *pending.thrid);
    if (status == 0) {
      r.args.emplace_back("rc", "0");
      r.args.emplace_back("jobid", nspace);
      r.args.emplace_back("nerrs", "0");
    } else {
      r.args.emplace_back("rc", "-1");
      r.args.emplace_back("errmsg", "spawn refused by mpilaunch");
    }
    reply(pending.rank, taken->conn, std::move(r), out);
  } else if (status == 0) {
    reply(pending.rank, taken->conn, {"spawn_result", {{"rc", "0"}}}, out);
  } else {
    reply(pending.rank, taken->conn, {"spawn_result", {{"rc", "-1"}, {"msg", "spawn_refused"}}},
          out);
  }
  return out;
}

void ServerCore::maybe_barrier(std::vector<Output>& out) {
  if (barrier_sent_) return;
  for (const auto& [r, c] : conns_)
    if (!c.in_barrier) return;
  barrier_sent_ = true;
  out.push_back({.kind = Output::Kind::BarrierReady, .puts = std::move(pending_puts_)});
  pending_puts_.clear();
}

std::vector<Output> ServerCore::release_barrier(const std::map<std::string, std::string>& all) {
  std::vector<Output> out;
  if (!barrier_sent_) return out;
  for (const auto& [k, v] : all) kvs_[k] = v;
  barrier_sent_ = false;
  for (auto& [r, c] : conns_) {
    if (!c.in_barrier) continue;
    c.in_barrier = false;
    if (c.version == 2)
      reply(r, c, {"kvs-fence-response", {{"rc", "0"}}}, out);
    else
      reply(r, c, {"barrier_out", {}}, out);
  }
  return out;
}

}  // namespace mpilaunch::pmi
