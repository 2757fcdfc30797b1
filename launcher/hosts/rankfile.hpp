#pragma once
/// -rf/--rankfile files in mpirun 4.1's syntax: "rank N=HOST slot=SPEC" per line, SPEC being
/// logical CPUs of the node ("1", "0-2", "0,3") or of a socket ("1:0-2"). Pure: the caller
/// reads the file; errors name the place (path:line) and the fix.

#include <string>
#include <string_view>
#include <vector>

#include "common/placement.hpp"
#include "common/result.hpp"
#include "launcher/hosts/host_entry.hpp"

namespace mpilaunch::launcher {

/// The lines of a rankfile, in file order. '#' starts a comment; blank lines are fine; blanks
/// around '=' too. Errors are BadOption, detail "path:line: ...": a line that is not "rank N=HOST
/// slot=SPEC", a rank given twice, Open MPI's relative hosts ("+n0"), which need a resource
/// manager's allocation.
Result<std::vector<RankfileLine>> parse_rankfile(std::string_view text, std::string_view path);

/// The job's hosts and ranks with a rankfile. `hosts` (from -H, --hostfile or an allocation)
/// must hold every host the file names (mpirun: "a host was either not allocated or
/// oversubscribed its slots"); without hosts, the file's hosts are the hosts, in the order they
/// first appear, each with as many slots as it has ranks.
/// Errors: BadOption naming the rankfile's line and the fix.
Result<std::vector<HostEntry>> rankfile_hosts(const std::vector<RankfileLine>& lines,
                                              const std::vector<HostEntry>& hosts,
                                              std::string_view path);

}  // namespace mpilaunch::launcher
