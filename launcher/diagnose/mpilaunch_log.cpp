#include "launcher/diagnose/mpilaunch_log.hpp"

#include <nlohmann/json.hpp>

#include "common/error_json.hpp"
#include "common/text.hpp"
#include "launcher/diagnose/finding_set.hpp"

namespace mpilaunch::launcher {
namespace {

constexpr std::string_view kHeader = "mpilaunch: error: ";

std::optional<nlohmann::json> parse_v1(std::string_view line) {
  if (!line.starts_with("{") || line.find("\"v\"") == std::string_view::npos) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("v") || j["v"] != 1) return std::nullopt;
  return j;
}

}  // namespace

std::optional<EventError> parse_event_line(std::string_view line) {
  const auto j = parse_v1(line);
  if (!j || !j->contains("error")) return std::nullopt;
  auto error = error_from_json((*j)["error"]);
  if (!error) return std::nullopt;
  const bool job_failed = j->contains("event") && (*j)["event"] == "job-failed";
  return EventError{std::move(*error), job_failed};
}

std::optional<int> parse_job_end_exit_code(std::string_view line) {
  const auto j = parse_v1(line);
  if (!j || !j->contains("event") || (*j)["event"] != "job-end") return std::nullopt;
  if (!j->contains("exit_code") || !(*j)["exit_code"].is_number_integer()) return std::nullopt;
  return (*j)["exit_code"].get<int>();
}

bool HumanBlockReader::ignores(std::string_view text) const {
  return !open_ && !text.starts_with(kHeader);
}

std::optional<Error> HumanBlockReader::feed(std::string_view text, std::string_view raw) {
  if (text.starts_with(kHeader)) {
    std::optional<Error> done = finish();
    open_ = Error{.kind = ErrorKind::Unknown};
    append_evidence(open_->evidence, {std::string(raw)});
    return done;
  }
  if (!open_) return std::nullopt;
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return finish();
  const std::string_view key = text.substr(0, colon);
  std::string_view value = text.substr(colon + 1);
  while (value.starts_with(' ')) value.remove_prefix(1);
  Error& e = *open_;
  if (key == "kind") {
    const auto kind = kind_from_name(value);
    if (!kind) return finish();
    e.kind = *kind;
  } else if (key == "node") {
    e.host = value;
  } else if (key == "rank") {
    e.rank = leading_int<int>(value);
  } else if (key == "pid") {
    e.pid = leading_int<int>(value);
  } else if (key == "exit code") {
    e.exit_code = leading_int<int>(value);
  } else if (key == "signal") {
    e.signal = leading_int<int>(value);
  } else if (key == "phase") {
    e.phase = value;
  } else if (key == "program") {
    e.executable = value;
  } else if (key == "reported") {
    e.count = leading_int<int>(value);
  } else if (key != "hint") {
    return finish();
  }
  append_evidence(e.evidence, {std::string(raw)});
  if (key == "hint") return finish();
  return std::nullopt;
}

std::optional<Error> HumanBlockReader::finish() {
  std::optional<Error> done = std::move(open_);
  open_.reset();
  // A header without a kind line is someone else's text, not a rendered error.
  if (done && done->evidence.size() < 2) return std::nullopt;
  return done;
}

}  // namespace mpilaunch::launcher
