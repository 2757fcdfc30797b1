#include "launcher/job/stacks_request.hpp"

#include <charconv>

#include "common/text_format.hpp"

namespace mpilaunch::launcher {
namespace {

std::optional<std::string> job_of(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find("job");
  if (it == j.end() || !it->is_string()) return std::nullopt;
  std::string id = it->get<std::string>();
  if (!looks_like_job_id(id)) return std::nullopt;
  return id;
}

}  // namespace

bool looks_like_job_id(std::string_view s) {
  if (s.size() != 8) return false;
  for (const char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::optional<std::string> job_id_in(std::string_view text) {
  // A --status document is one JSON object; an events file has one object per line, the
  // job-start event first (only the first few lines are looked at).
  const nlohmann::json whole = nlohmann::json::parse(text, nullptr, false);
  if (!whole.is_discarded()) return job_of(whole);
  for (int line = 0; line < 16 && !text.empty(); ++line) {
    const std::size_t end = text.find('\n');
    const std::string_view one = text.substr(0, end);
    const nlohmann::json j = nlohmann::json::parse(one, nullptr, false);
    if (j.is_object() && j.value("event", "") == "job-start") return job_of(j);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return std::nullopt;
}

std::optional<std::string> job_id_of_dir(std::string_view name, unsigned uid) {
  const std::string prefix = mpilaunch::format("mpilaunch-{}-", uid);
  if (!name.starts_with(prefix)) return std::nullopt;
  name.remove_prefix(prefix.size());
  if (!looks_like_job_id(name)) return std::nullopt;
  return std::string(name);
}

std::string job_dir_of(std::string_view base, unsigned uid, std::string_view id) {
  return mpilaunch::format("{}/mpilaunch-{}-{}", base, uid, id);
}

std::string render_reply(const StacksReply& reply) {
  nlohmann::json j = {{"job", reply.job}};
  if (!reply.error.empty()) {
    j["error"] = reply.error;
  } else {
    j["tree"] = reply.tree;
    j["stacks"] = reply.stacks;
  }
  // Raw stacks are a tool's text: never let a stray byte make the reply unwritable.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::optional<StacksReply> parse_reply(std::string_view text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  StacksReply r;
  if (j.contains("job")) {
    if (!j["job"].is_string()) return std::nullopt;
    r.job = j["job"].get<std::string>();
  }
  if (j.contains("error")) {
    if (!j["error"].is_string()) return std::nullopt;
    r.error = j["error"].get<std::string>();
    return r;
  }
  if (!j.contains("tree") || !j["tree"].is_string() || !j.contains("stacks") ||
      !j["stacks"].is_object())
    return std::nullopt;
  r.tree = j["tree"].get<std::string>();
  r.stacks = j["stacks"];
  return r;
}

}  // namespace mpilaunch::launcher
