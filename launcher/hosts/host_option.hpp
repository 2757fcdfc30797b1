#pragma once
/// -H/--host values as mpirun takes them. Pure: the value in, hosts or an Error naming the item.

#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "launcher/hosts/host_entry.hpp"

namespace mpilaunch::launcher {

/// One -H/--host value: "h1,h2:4,user@h3:2,[::1]:2". "name:N" gives N slots (N >= 1); a name
/// given again adds its slots, as in Open MPI ("-H a,a" is a with 2 slots). A bare IPv6 address
/// ("fe80::1") takes no ":N": write "[fe80::1]:N". Errors are BadOption; the detail quotes the
/// value and names the item by its position.
Result<std::vector<HostEntry>> parse_host_option(std::string_view value);

}  // namespace mpilaunch::launcher
