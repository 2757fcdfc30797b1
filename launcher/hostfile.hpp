#pragma once
/// Host lists as people write them: -H values and host files in Open MPI ("host slots=N
/// max_slots=M") and MPICH ("host:N") syntax. Pure: text in, hosts or an Error naming the
/// place (path:line) and the fix out.

#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "launcher/host_entry.hpp"

namespace mpilaunch::launcher {

/// One -H/--host value: "h1,h2:4,user@h3:2,[::1]:2". Repeated names add slots, as in Open MPI.
/// Errors are BadOption.
Result<std::vector<HostEntry>> parse_host_option(std::string_view value);

/// A host file's text. `path` only names the file in errors (HostfileError, "path:line: ...").
/// Lines: "host", "host slots=N [max_slots=M]" (also "slots = N", "count=N", "cpu=N"),
/// "host:N", "user@host ...", "# comments". Repeated hosts add up.
Result<std::vector<HostEntry>> parse_hostfile(std::string_view text, std::string_view path);

/// Adds `entry` to `hosts`, merging with an entry of the same name (slots add up).
void add_host(std::vector<HostEntry>& hosts, HostEntry entry);

}  // namespace mpilaunch::launcher
