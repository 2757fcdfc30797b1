// Debugging and reporting: the plan, the events file, root, help and version.
#include "launcher/cli/option_table.hpp"

namespace mpilaunch::launcher {

void add_debugging_options(std::vector<OptionSpec>& t) {
  t.push_back({{"--dry-run", "-dry-run"}, 0, [](Options& o, const Values&) {
                 return set_flag(o.dry_run);
               }});
  t.push_back({{"--events"}, 1, [](Options& o, const Values& v) -> Status {
                 o.events_file = std::string(v[0]);
                 return {};
               }});
  t.push_back({{"--allow-run-as-root", "-allow-run-as-root"}, 0, [](Options& o, const Values&) {
                 return set_flag(o.allow_run_as_root);
               }});
  t.push_back(
      {{"--refuse-root"}, 0, [](Options& o, const Values&) { return set_flag(o.refuse_root); }});
  t.push_back(
      {{"-h", "--help", "-help"}, 0, [](Options& o, const Values&) { return set_flag(o.help); }});
  t.push_back({{"-V", "--version", "-version"}, 0, [](Options& o, const Values&) {
                 return set_flag(o.version);
               }});
  t.push_back({{"--do-not-launch", "-do-not-launch"}, 0, [](Options& o, const Values&) {
                 return set_flag(o.do_not_launch);
               }});
}

}  // namespace mpilaunch::launcher
