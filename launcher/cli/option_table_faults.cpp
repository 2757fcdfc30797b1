// Fault handling: limits, teardown, restarts, the live status file.
#include "common/text_format.hpp"

#include "common/text.hpp"

#include "launcher/cli/option_table.hpp"

namespace mpilaunch::launcher {

void add_fault_options(std::vector<OptionSpec>& t) {
  t.push_back({{"--timeout", "-timeout"}, 1, [](Options& o, const Values& v) -> Status {
                 auto s = seconds("--timeout", v[0]);
                 if (!s) return s.error();
                 if (s.value() <= 0) return bad_option("--timeout must be more than 0 seconds");
                 o.timeout_seconds = s.value();
                 return {};
               }});
  t.push_back({{"--report-state-on-timeout", "-report-state-on-timeout"},
               0,
               [](Options& o, const Values&) { return set_flag(o.report_state_on_timeout); }});
  t.push_back({{"--get-stack-traces", "-get-stack-traces"}, 0, [](Options& o, const Values&) {
                 return set_flag(o.get_stack_traces);
               }});
  t.push_back({{"--wireup-timeout"}, 1, [](Options& o, const Values& v) -> Status {
                 auto s = seconds("--wireup-timeout", v[0]);
                 if (!s) return s.error();
                 if (s.value() <= 0)
                   return bad_option("--wireup-timeout must be more than 0 seconds");
                 o.wireup_timeout_seconds = s.value();
                 return {};
               }});
  t.push_back({{"--kill-grace"}, 1, [](Options& o, const Values& v) -> Status {
                 auto s = seconds("--kill-grace", v[0]);
                 if (!s) return s.error();
                 o.kill_grace_seconds = s.value();
                 return {};
               }});
  t.push_back(
      passes("orte_max_restarts",
             {{"--max-restarts", "-max-restarts"}, 1, [](Options& o, const Values& v) -> Status {
                const auto n = parse_int<int>(v[0], 0);
                if (!n)
                  return bad_option(mpilaunch::format(
                      "--max-restarts needs a whole number of at least 0, not '{}'", v[0]));
                o.max_restarts = *n;
                return {};
              }}));
  t.push_back(passes("orte_enable_recovery",
                     {{"--enable-recovery", "-enable-recovery"}, 0, [](Options& o, const Values&) {
                        return set_flag(o.enable_recovery);
                      }}));
  t.push_back({{"--restart-on"}, 1, [](Options& o, const Values& v) -> Status {
                 std::string_view rest = v[0];
                 while (!rest.empty()) {
                   const auto comma = rest.find(',');
                   const std::string_view name = rest.substr(0, comma);
                   const auto kind = kind_from_name(name);
                   if (!kind)
                     return bad_option(mpilaunch::format(
                         "--restart-on: '{}' is not an error kind (see 'mpilaunch --help' "
                         "and docs/errors.md)",
                         name));
                   o.restart_on.push_back(*kind);
                   if (comma == std::string_view::npos) break;
                   rest.remove_prefix(comma + 1);
                 }
                 return {};
               }});
  t.push_back({{"--restart-backoff"}, 1, [](Options& o, const Values& v) -> Status {
                 // FIRST or FIRST,MAX in seconds.
                 const std::string_view text = v[0];
                 const auto comma = text.find(',');
                 auto first = seconds("--restart-backoff", text.substr(0, comma));
                 if (!first) return first.error();
                 o.restart_backoff_seconds = first.value();
                 if (comma != std::string_view::npos) {
                   auto max = seconds("--restart-backoff", text.substr(comma + 1));
                   if (!max) return max.error();
                   if (max.value() < first.value())
                     return bad_option(
                         "--restart-backoff FIRST,MAX: MAX must not be smaller than FIRST");
                   o.restart_backoff_max_seconds = max.value();
                 }
                 return {};
               }});
  t.push_back({{"--status"}, 1, [](Options& o, const Values& v) -> Status {
                 o.status_file = std::string(v[0]);
                 return {};
               }});
  t.push_back({{"--disable-recovery", "-disable-recovery"}, 0, [](Options& o, const Values&) {
                 return set_flag(o.disable_recovery);
               }});
}

}  // namespace mpilaunch::launcher
