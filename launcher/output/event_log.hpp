#pragma once
/// [io] The --events timeline: JSON Lines, one object per event with "v":1, "time" (RFC 3339,
/// UTC, milliseconds) and "event". Each line is flushed as it is written, so a crash keeps the
/// timeline up to that point. Without a file every call is a no-op. A failed write (a full file
/// system) is said once on stderr; the job goes on.

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace mpilaunch::launcher {

class EventLog {
 public:
  EventLog() = default;
  ~EventLog();
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;

  /// Opens (truncates) `path`; an empty path disables the log.
  Status open(const std::string& path);
  /// Writes one event; `fields` is an object merged after v, time and event.
  void write(const std::string& event, nlohmann::json fields = nlohmann::json::object());

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  bool failed_ = false;  // a write failed and was reported; nothing more is written
};

/// Now as "2026-11-22T23:01:02.123Z".
std::string rfc3339_now();

}  // namespace mpilaunch::launcher
