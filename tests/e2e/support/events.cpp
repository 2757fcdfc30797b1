#include "tests/e2e/support/events.hpp"

#include <fstream>
#include <regex>

namespace mpilaunch::e2e {

EventsFile read_events(const std::string& path) {
  EventsFile file;
  std::ifstream in(path);
  if (!in) {
    file.problems.push_back("cannot read " + path);
    return file;
  }
  static const std::regex kRfc3339Utc(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00))");
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = "line " + std::to_string(number) + ": ";
    Json event = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (event.is_discarded()) {
      file.problems.push_back(where + "not JSON: " + line);
      continue;
    }
    if (!event.is_object()) {
      file.problems.push_back(where + "not an object: " + line);
    } else {
      if (event.value("v", Json()) != Json(1)) file.problems.push_back(where + "no \"v\":1");
      const Json time = event.value("time", Json());
      if (!time.is_string() || !std::regex_match(time.get<std::string>(), kRfc3339Utc))
        file.problems.push_back(where + "\"time\" is not RFC 3339 UTC: " + time.dump());
      if (!event.value("event", Json()).is_string())
        file.problems.push_back(where + "no string \"event\"");
    }
    file.events.push_back(std::move(event));
  }
  return file;
}

std::vector<Json> events_named(const std::vector<Json>& events, const std::string& name) {
  std::vector<Json> out;
  for (const Json& e : events)
    if (e.is_object() && e.value("event", Json()) == Json(name)) out.push_back(e);
  return out;
}

std::optional<Json> first_event(const std::vector<Json>& events, const std::string& name) {
  const std::vector<Json> named = events_named(events, name);
  if (named.empty()) return std::nullopt;
  return named.front();
}

std::optional<Json> rank_exit_of(const std::vector<Json>& events, int rank) {
  for (const Json& e : events_named(events, "rank-exit"))
    if (e.value("rank", Json()) == Json(rank)) return e;
  return std::nullopt;
}

}  // namespace mpilaunch::e2e
