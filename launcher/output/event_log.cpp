#include "launcher/output/event_log.hpp"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "common/text_format.hpp"

namespace mpilaunch::launcher {

std::string rfc3339_now() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return mpilaunch::format("{}.{:03}Z", buf, ms.count());
}

EventLog::~EventLog() {
  if (file_ != nullptr) std::fclose(file_);
}

Status EventLog::open(const std::string& path) {
  if (path.empty()) return {};
  path_ = path;
  file_ = std::fopen(path.c_str(), "we");
  if (file_ == nullptr)
    return Error{.kind = ErrorKind::BadOption,
                 .detail = mpilaunch::format("--events {}: {}", path, std::strerror(errno))};
  return {};
}

void EventLog::write(const std::string& event, nlohmann::json fields) {
  if (file_ == nullptr || failed_) return;
  nlohmann::json line = {{"v", 1}, {"time", rfc3339_now()}, {"event", event}};
  if (fields.is_object()) line.update(fields);
  const std::string text =
      line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_) == text.size() && std::fflush(file_) == 0)
    return;
  // Once: a later line after a lost one would only make a timeline with a hole look whole.
  failed_ = true;
  std::fprintf(stderr, "mpilaunch: warning: --events %s: %s; this and later events are lost\n",
               path_.c_str(), std::strerror(errno != 0 ? errno : EIO));
}

}  // namespace mpilaunch::launcher
