#pragma once
/// Where this process's cgroup v2 directory is, from the texts of /proc/self/mountinfo and
/// /proc/self/cgroup (for the job's own cgroup, agent/job_cgroup.hpp).

#include <optional>
#include <string>
#include <string_view>

namespace mpilaunch::agent {

/// The directory of the unified (v2) hierarchy's cgroup that `proc_cgroup` names ("0::/path"),
/// under the first cgroup2 mount of `mountinfo` whose root contains it; nullopt when there is
/// no v2 hierarchy, no mount of it, or a path that needs unescaping.
std::optional<std::string> cgroup2_dir(std::string_view mountinfo, std::string_view proc_cgroup);

}  // namespace mpilaunch::agent
