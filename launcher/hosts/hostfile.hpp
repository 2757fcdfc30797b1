#pragma once
/// Host files in Open MPI ("host slots=N max_slots=M") and MPICH ("host:N") syntax. Pure: the
/// caller reads the file and passes its text; errors name the place (path:line) and the fix.

#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "launcher/hosts/host_entry.hpp"

namespace mpilaunch::launcher {

/// A host file's text; `path` only names the file in errors. One host per line, first word the
/// host ("name", "user@name", "[v6]", MPICH "name:N"), then Open MPI's key=value words, with
/// optional blanks around '=': slots/count/cpu, max_slots (and its spellings), username, port;
/// boards/sockets/cores are checked and ignored. '#' starts a comment; blank lines and CRLF are
/// fine. A host on several lines without slots gets one slot per line; with slots on one of
/// them it is an error, as in Open MPI. Errors are HostfileError, detail "path:line: ...".
/// `line_hosts`, when given, gets each line's host in order ("user@name", "[v6]").
Result<std::vector<HostEntry>> parse_hostfile(std::string_view text, std::string_view path,
                                              std::vector<std::string>* line_hosts = nullptr);

}  // namespace mpilaunch::launcher
