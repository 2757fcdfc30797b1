// libFuzzer target: PMI-1 lines and PMI-2 messages from a rank must never crash the agent's PMI
// server core, read out of bounds or buffer without limit; the first byte chooses the rank and
// how the input is chopped into reads.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/pmi_wire.hpp"

using namespace mpilaunch::pmi;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::size_t chunk = 7;
  int rank = 0;
  if (!in.empty()) {
    chunk = 1 + static_cast<unsigned char>(in.front()) % 64;
    rank = static_cast<unsigned char>(in.front()) % 3;
    in.remove_prefix(1);
  }
  (void)parse_pmi1_line(in);
  if (auto puts = decode_puts(std::as_bytes(std::span(in.data(), in.size()))))
    (void)encode_puts(*puts);
  if (auto p = parse_pmi2_body(in); p.command) (void)format_pmi2(*p.command);
  ServerCore s(JobFacts{
      .kvsname = "kvs", .size = 2, .process_mapping = "(vector,(0,1,2))", .local_ranks = {0, 1}});
  while (!in.empty()) {
    const auto piece = in.substr(0, chunk);
    in.remove_prefix(piece.size());
    for (const auto& o : s.feed(rank, piece)) {
      if (o.kind == Output::Kind::BarrierReady) (void)s.release_barrier(o.puts);
      if (o.kind == Output::Kind::NameRequest) (void)s.answer_name(o.token, {});
      if (o.kind == Output::Kind::SpawnRequest) (void)s.answer_spawn(o.token, 0, "kvs-job2");
      if (o.kind == Output::Kind::Reply && o.bytes.size() > 2 * kMaxPmi2Message) __builtin_trap();
    }
  }
  return 0;
}
