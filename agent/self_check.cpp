#include "agent/self_check.hpp"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "common/text_format.hpp"

#include "agent/login_shell.hpp"
#include "agent/pmix_host.hpp"
#include "common/protocol.hpp"
#include "mpilaunch_version.h"

namespace mpilaunch::agent {
namespace {

// The same order the launcher uses for job temp dirs: $MPILAUNCH_TMPDIR, /dev/shm, $TMPDIR, /tmp.
std::string temp_base() {
  if (const char* dir = std::getenv("MPILAUNCH_TMPDIR"); dir != nullptr && *dir != '\0') return dir;
  if (::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
  if (const char* dir = std::getenv("TMPDIR"); dir != nullptr && *dir != '\0') return dir;
  return "/tmp";
}

// Values stay on one line whatever a library said.
std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

}  // namespace

int run_self_check() {
  // First, before this check's own work adds to it.
  const std::optional<long> login_ms = login_shell_ms();
  bool ok = true;
  std::string out = "mpilaunch-self-check=1\n";
  out += mpilaunch::format("version={}\nprotocol={}\n", MPILAUNCH_VERSION,
                           static_cast<unsigned>(protocol::kProtocolVersion));
  char name[256] = {};
  out += mpilaunch::format("hostname={}\n", ::gethostname(name, sizeof name - 1) == 0 ? name : "");
  out += mpilaunch::format("cpus={}\n", ::sysconf(_SC_NPROCESSORS_ONLN));
  if (login_ms) out += mpilaunch::format("login_ms={}\n", *login_ms);

  const std::string base = temp_base();
  out += mpilaunch::format("tmpdir={}\n", base);
  std::string scratch = base + "/mpilaunch-self-check-XXXXXX";
  if (::mkdtemp(scratch.data()) == nullptr) {
    ok = false;
    out += mpilaunch::format("tmpdir_error=cannot create a directory in {}: {}\n", base,
                             std::strerror(errno));
    scratch.clear();
  }

  out += mpilaunch::format("pmix={}\n", one_line(pmix_library_version()));
  if (scratch.empty()) {
    ok = false;
    out += "pmix_error=not tried: no writable temp dir for the PMIx server\n";
  } else if (Status st = pmix_self_test(scratch); !st) {
    ok = false;
    out += mpilaunch::format("pmix_error={}\n", one_line(st.error().detail));
  }
  if (!scratch.empty()) {
    const std::string rm = mpilaunch::format("rm -rf '{}'", scratch);  // libpmix leaves files in it
    if (std::system(rm.c_str()) != 0) out += "tmpdir_warning=scratch dir not removed\n";
  }
  // Last, so that the launcher's receive time is as close as possible.
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  out += mpilaunch::format("time={:.6f}\n", std::chrono::duration<double>(now).count());
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  return ok ? 0 : 1;
}

}  // namespace mpilaunch::agent
