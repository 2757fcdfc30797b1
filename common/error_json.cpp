#include "common/error_json.hpp"

#include "common/error_catalog.hpp"

namespace mpilaunch {

nlohmann::json error_to_json(const Error& e) {
  nlohmann::json j;
  j["kind"] = std::string(kind_name(e.kind));
  if (!e.host.empty()) j["host"] = e.host;
  if (e.rank) j["rank"] = *e.rank;
  if (e.exit_code) j["exit_code"] = *e.exit_code;
  if (e.signal) j["signal"] = *e.signal;
  if (e.pid) j["pid"] = *e.pid;
  if (e.count) j["count"] = *e.count;
  if (!e.phase.empty()) j["phase"] = e.phase;
  if (!e.executable.empty()) j["executable"] = e.executable;
  if (!e.detail.empty()) j["detail"] = e.detail;
  j["message"] = message(e);
  j["hint"] = hint(e);
  if (!e.evidence.empty()) j["evidence"] = e.evidence;
  return j;
}

std::optional<Error> error_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) return std::nullopt;
  const auto kind = kind_from_name(j["kind"].get<std::string>());
  if (!kind) return std::nullopt;
  Error e{.kind = *kind};
  auto get_int = [&](const char* key, std::optional<int>& out) {
    if (j.contains(key) && j[key].is_number_integer()) out = j[key].get<int>();
  };
  auto get_str = [&](const char* key, std::string& out) {
    if (j.contains(key) && j[key].is_string()) out = j[key].get<std::string>();
  };
  get_str("host", e.host);
  get_int("rank", e.rank);
  get_int("exit_code", e.exit_code);
  get_int("signal", e.signal);
  get_int("pid", e.pid);
  get_int("count", e.count);
  get_str("phase", e.phase);
  get_str("executable", e.executable);
  get_str("detail", e.detail);
  if (j.contains("evidence") && j["evidence"].is_array())
    for (const auto& line : j["evidence"])
      if (line.is_string()) e.evidence.push_back(line.get<std::string>());
  return e;
}

}  // namespace mpilaunch
