#pragma once
/// The launcher's --events file: JSON Lines, one object per line.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mpilaunch::e2e {

using Json = nlohmann::json;

struct EventsFile {
  std::vector<Json> events;           // every line that parsed as JSON, in file order
  std::vector<std::string> problems;  // "line 3: ..." for each line breaking the common shape
};

/// Reads `path` and checks every line for the shape all events share: an object with "v":1, a
/// "time" that is an RFC 3339 UTC timestamp and a string "event". A missing file is a problem.
EventsFile read_events(const std::string& path);

/// The events named `name`, in file order.
std::vector<Json> events_named(const std::vector<Json>& events, const std::string& name);

/// The first event named `name`, if any.
std::optional<Json> first_event(const std::vector<Json>& events, const std::string& name);

/// The "rank-exit" event of `rank`, if any.
std::optional<Json> rank_exit_of(const std::vector<Json>& events, int rank);

}  // namespace mpilaunch::e2e
