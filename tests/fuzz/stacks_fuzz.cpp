// libFuzzer target: a debugger's text (gdb, eu-stack, an Open MPI --get-stack-traces dump) and
// the documents `mpilaunch stacks` reads (a --status or --events file, a launcher's reply) come
// from other programs: any bytes must parse without crashing, reading out of bounds or growing
// past the stated bounds, and the merged tree must always render and serialise.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/job/stacks_request.hpp"
#include "launcher/stacks/ompi_stack_dump.hpp"
#include "launcher/stacks/stack_merge.hpp"
#include "launcher/stacks/stack_text.hpp"
#include "launcher/stacks/straggler.hpp"

namespace {

using namespace mpilaunch::launcher;

void check_bounds(const std::vector<ThreadStack>& threads) {
  if (threads.size() > kMaxThreads) __builtin_trap();
  for (const ThreadStack& t : threads)
    if (t.frames.size() > kMaxFrames) __builtin_trap();
}

void render(const std::vector<ProcessStack>& stacks) {
  (void)render_stack_tree(stacks);
  (void)stacks_to_json(stacks).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  (void)describe_stragglers(stacks);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  check_bounds(parse_gdb_stack(in));
  check_bounds(parse_eu_stack(in));

  // The same text as three ranks' answers, one per tool, on two hosts.
  std::vector<ProcessStack> stacks;
  int rank = 0;
  for (const char* tool : {"gdb", "eu-stack", ""}) {
    stacks.push_back(
        process_stack(rank, rank == 0 ? "node1" : "node2", 100 + rank, tool, std::string(in), ""));
    if (stacks.back().threads.empty() == (stacks.back().reason == StackReason::None))
      __builtin_trap();  // a rank without a stack always says why, as a type
    ++rank;
  }
  render(stacks);

  OmpiStackDump dump;
  std::string_view lines = in;
  while (!lines.empty()) {
    const std::size_t nl = lines.find('\n');
    dump.feed(lines.substr(0, nl));
    if (nl == std::string_view::npos) break;
    lines.remove_prefix(nl + 1);
  }
  const std::vector<ProcessStack> dumped = dump.finish();
  if (dumped.size() > OmpiStackDump::kMaxProcesses) __builtin_trap();
  for (const ProcessStack& p : dumped)
    if (p.raw.size() > OmpiStackDump::kMaxRawBytes) __builtin_trap();
  render(dumped);

  if (const auto id = job_id_in(in); id && !looks_like_job_id(*id)) __builtin_trap();
  if (const auto reply = parse_reply(in)) (void)render_reply(*reply);
  return 0;
}
