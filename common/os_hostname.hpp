#pragma once
/// [io] This machine's hostname (gethostname), "localhost" when it cannot be read.

#include <unistd.h>

#include <string>

namespace mpilaunch {

inline std::string os_hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "localhost";
  return name;
}

}  // namespace mpilaunch
