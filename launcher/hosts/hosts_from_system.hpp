#pragma once
/// [io] The hosts of a run: -H values, the --hostfile's text, or a resource manager's
/// environment. Reads files and the environment, then hands the text to the pure parsers.

#include <string>

#include "common/result.hpp"
#include "launcher/cli/options.hpp"
#include "launcher/hosts/host_entry.hpp"

namespace mpilaunch::launcher {

/// The text of a host file (also a rankfile, a spawn's info hostfile): a HostfileError naming
/// `path` when it is a directory, cannot be read, or is larger than 16 MiB.
Result<std::string> read_host_file(const std::string& path);

/// An empty HostList means "no hosts given": isolated local mode.
Result<HostList> gather_hosts(const Options& options);

}  // namespace mpilaunch::launcher
