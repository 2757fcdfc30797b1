// libFuzzer target: the host parsers (hostfile, -H, Slurm host lists and counts) must never
// crash, and their output must stay within the documented caps, whatever text arrives.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "launcher/hosts/host_option.hpp"
#include "launcher/hosts/hostfile.hpp"
#include "launcher/hosts/hostlist.hpp"

using namespace mpilaunch::launcher;

namespace {

void check_hosts(const std::vector<HostEntry>& hosts) {
  for (const HostEntry& h : hosts) {
    if (h.name.empty() || h.name.size() > kMaxHostNameBytes) __builtin_trap();
    if (h.slots < 1 || h.slots > kMaxSlotsPerHost) __builtin_trap();
    if (h.max_slots && *h.max_slots < 1) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto hosts = parse_hostfile(text, "fuzz")) check_hosts(hosts.value());
  if (auto hosts = parse_host_option(text)) check_hosts(hosts.value());
  if (auto names = expand_hostlist(text, "fuzz")) {
    if (names->size() > kMaxExpandedHosts) __builtin_trap();
    for (const std::string& name : names.value())
      if (name.empty() || name.size() > kMaxHostNameBytes) __builtin_trap();
  }
  if (auto counts = expand_node_counts(text, "fuzz")) {
    if (counts->size() > kMaxExpandedHosts) __builtin_trap();
    for (const int n : counts.value())
      if (n < 1) __builtin_trap();
  }
  return 0;
}
