#include "launcher/diagnose/explain.hpp"

#include "common/error_catalog.hpp"
#include "common/error_json.hpp"
#include "launcher/diagnose/console_parser.hpp"

namespace mpilaunch::launcher {

Explanation explain_text(std::string_view log, std::optional<int> rc) {
  ConsoleParser parser;
  while (!log.empty()) {
    const std::size_t nl = log.find('\n');
    parser.feed(log.substr(0, nl));
    if (nl == std::string_view::npos) break;
    log.remove_prefix(nl + 1);
  }
  return parser.finish(rc);
}

std::string render_explanation_human(const Explanation& x) {
  if (!x.error) return render_no_error(x.runtime, x.rc);
  return render_explanation(*x.error, x.runtime, x.rc, x.secondary);
}

nlohmann::json explanation_to_json(const Explanation& x) {
  nlohmann::json j;
  j["runtime"] = x.runtime;
  if (x.rc) j["rc"] = *x.rc;
  if (x.error) j["error"] = error_to_json(*x.error);
  j["secondary"] = nlohmann::json::array();
  for (const Error& e : x.secondary) j["secondary"].push_back(error_to_json(e));
  return j;
}

}  // namespace mpilaunch::launcher
