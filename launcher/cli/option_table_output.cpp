// Rank output and input, and what mpilaunch itself prints.
#include "common/text_format.hpp"

#include "launcher/cli/option_table.hpp"

namespace mpilaunch::launcher {

void add_output_options(std::vector<OptionSpec>& t) {
  t.push_back(
      passes("orte_tag_output", {{"--tag-output", "-tag-output"}, 0, [](Options& o, const Values&) {
                                   return set_flag(o.tag_output);
                                 }}));
  t.push_back(passes("orte_timestamp_output",
                     {{"--timestamp-output", "-timestamp-output"},
                      0,
                      [](Options& o, const Values&) { return set_flag(o.timestamp_output); }}));
  t.push_back(passes(
      "orte_output_filename",
      {{"--output-filename", "-output-filename"}, 1, [](Options& o, const Values& v) -> Status {
         o.output_filename = std::string(v[0]);
         return {};
       }}));
  t.push_back({{"--stdin", "-stdin"}, 1, [](Options& o, const Values& v) -> Status {
                 if (v[0] != "all" && v[0] != "none" &&
                     v[0].find_first_not_of("0123456789") != std::string_view::npos)
                   return bad_option(
                       mpilaunch::format("--stdin {}: give a rank number, 'all' or 'none'", v[0]));
                 o.stdin_target = std::string(v[0]);
                 return {};
               }});
  t.push_back({{"--merge-stderr-to-stdout", "-merge-stderr-to-stdout"},
               0,
               [](Options& o, const Values&) { return set_flag(o.merge_stderr_to_stdout); }});
  t.push_back({{"--rank-stdout"}, 1, [](Options& o, const Values& v) -> Status {
                 if (v[0] != "pty" && v[0] != "pipe")
                   return bad_option(
                       mpilaunch::format("--rank-stdout {}: give 'pty' or 'pipe'", v[0]));
                 o.rank_stdout = std::string(v[0]);
                 return {};
               }});
  t.push_back(
      passes("orte_execute_quiet", {{"-q", "--quiet", "-quiet"}, 0, [](Options& o, const Values&) {
                                      return set_flag(o.quiet);
                                    }}));
  t.push_back({{"--report-pid", "-report-pid"}, 1, [](Options& o, const Values& v) -> Status {
                 if (v[0].empty()) return bad_option("--report-pid needs '-', '+' or a file name");
                 o.report_pid = std::string(v[0]);
                 return {};
               }});
}

}  // namespace mpilaunch::launcher
