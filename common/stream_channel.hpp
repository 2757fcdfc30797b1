#pragma once
/// [io] The stream channel between the launcher and a local agent: a SOCK_SEQPACKET socket on
/// which the agent hands the launcher each rank's stdout and stderr pipes (SCM_RIGHTS), so the
/// launcher reads them itself and rank output no longer passes through the agent. One record
/// per rank: u32 rank, u32 attempt, and the two descriptors (docs/protocol.md).

#include <cstdint>
#include <optional>

#include "common/result.hpp"

namespace mpilaunch::stream_channel {

/// What the agent passes for one rank.
struct RankStreams {
  std::uint32_t rank = 0;
  std::uint32_t attempt = 0;
  int stdout_fd = -1;  // read ends; the receiver owns them
  int stderr_fd = -1;
};

/// The agent's argument naming its end of the channel: `--stream-fd N`.
inline constexpr const char* kAgentOption = "--stream-fd";

/// Sends `streams` (the caller keeps and closes its own descriptors). Blocks while the
/// launcher's receive queue is full.
Status send(int channel, const RankStreams& streams);

/// Takes one record if one is queued, without waiting. nullopt: none queued yet. An Error:
/// the channel failed, closed, or carried something that is not a record.
Result<std::optional<RankStreams>> receive(int channel);

}  // namespace mpilaunch::stream_channel
