#pragma once
/// [io] The hosts of a run: -H values, the --hostfile's text, or a resource manager's
/// environment. Reads files and the environment, then hands the text to the pure parsers.

#include "common/result.hpp"
#include "launcher/cli/options.hpp"
#include "launcher/hosts/host_entry.hpp"

namespace mpilaunch::launcher {

/// An empty HostList means "no hosts given": isolated local mode.
Result<HostList> gather_hosts(const Options& options);

}  // namespace mpilaunch::launcher
