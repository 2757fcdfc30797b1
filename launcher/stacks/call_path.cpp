#include "launcher/stacks/call_path.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace mpilaunch::launcher {
namespace {

bool is_lower_word(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) != 0 ||
           std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

bool is_upper_word(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) != 0 ||
           std::isdigit(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

// "allreduce" or "ALLREDUCE" -> "MPI_Allreduce", "comm_rank" -> "MPI_Comm_rank".
std::string mpi_name(std::string_view rest) {
  std::string out = "MPI_";
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const auto c = static_cast<unsigned char>(rest[i]);
    out += static_cast<char>(i == 0 ? std::toupper(c) : std::tolower(c));
  }
  return out;
}

// Fortran bindings: mpi_allreduce_, mpi_allreduce__, mpi_allreduce_f08_, pmpi_*, MPI_ALLREDUCE.
std::string fortran_mpi(std::string_view s) {
  if (s.starts_with("pmpi_")) s.remove_prefix(1);
  if (s.starts_with("mpi_") && is_lower_word(s)) {
    s.remove_prefix(4);
    for (const std::string_view tail : {"_f08_", "_f08", "__", "_"}) {
      if (s.ends_with(tail)) {
        s.remove_suffix(tail.size());
        break;
      }
    }
    if (!s.empty() && s.back() != '_') return mpi_name(s);
    return {};
  }
  if (s.starts_with("PMPI_")) s.remove_prefix(1);
  if (s.starts_with("MPI_") && is_upper_word(s.substr(4))) return mpi_name(s.substr(4));
  return {};
}

// Drops "(int, char**) const" from a C++ name, but keeps "operator()".
void drop_parameters(std::string& s) {
  if (s.ends_with(" const")) s.resize(s.size() - 6);
  if (s.empty() || s.back() != ')') return;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) {
      if (i > 0 && !std::string_view(s).substr(0, i).ends_with("operator")) s.resize(i);
      return;
    }
  }
}

void drop_clone_suffix(std::string& s) {
  if (const std::size_t at = s.find(" [clone"); at != std::string::npos) s.resize(at);
  for (const std::string_view tail : {".constprop.", ".isra.", ".part.", ".cold", ".lto_priv."}) {
    if (const std::size_t at = s.find(tail); at != std::string::npos && at > 0) s.resize(at);
  }
}

// glibc's internal aliases: __GI___poll, __libc_read, __sched_yield, __clock_nanosleep.
void drop_glibc_alias(std::string& s) {
  if (s.find("::") != std::string::npos) return;
  if (s.starts_with("__GI_")) s.erase(0, 5);
  if (s.starts_with("__libc_start")) return;
  if (s.starts_with("__libc_")) s.erase(0, 7);
  while (s.size() > 2 && s.starts_with("__") && std::islower(static_cast<unsigned char>(s[2])) != 0)
    s.erase(0, 2);
}

// A sanitizer's wrapper around a libc call (ASan, TSan, MSan: __interceptor_read,
// ___interceptor_read, __interceptor_trampoline_read) is the call itself, so a sanitized
// program has the same call path as a plain one.
void drop_sanitizer_interceptor(std::string& s) {
  if (s.find("::") != std::string::npos) return;
  const std::size_t name = s.find_first_not_of('_');
  if (name == std::string::npos) return;
  const std::string_view rest = std::string_view(s).substr(name);
  for (const std::string_view prefix : {"interceptor_trampoline_", "interceptor_"}) {
    if (rest.starts_with(prefix) && rest.size() > prefix.size()) {
      s.erase(0, name + prefix.size());
      return;
    }
  }
}

bool is_startup_frame(std::string_view s) {
  constexpr std::array<std::string_view, 8> kStartup = {"_start",
                                                        "__libc_start_main",
                                                        "__libc_start_call_main",
                                                        "__libc_start_main_impl",
                                                        "start_thread",
                                                        "clone",
                                                        "clone3",
                                                        "thread_start"};
  return std::find(kStartup.begin(), kStartup.end(), s) != kStartup.end();
}

}  // namespace

std::string normalise_function(std::string_view raw) {
  while (!raw.empty() && raw.front() == ' ') raw.remove_prefix(1);
  while (!raw.empty() && raw.back() == ' ') raw.remove_suffix(1);
  if (raw.empty() || raw == "??") return {};
  std::string s(raw.substr(0, raw.find('@')));
  drop_clone_suffix(s);
  drop_parameters(s);
  if (std::string f = fortran_mpi(s); !f.empty()) return f;
  if (s.starts_with("PMPI_")) return s.substr(1);
  drop_glibc_alias(s);
  drop_sanitizer_interceptor(s);
  return s;
}

bool is_mpi_call(std::string_view s) {
  return s.size() >= 5 && s.starts_with("MPI_") &&
         std::isupper(static_cast<unsigned char>(s[4])) != 0 &&
         (s.size() == 5 || std::islower(static_cast<unsigned char>(s[5])) != 0 || s[5] == '_');
}

std::vector<std::string> call_path(const std::vector<std::string>& frames_innermost_first) {
  std::vector<std::string> path;
  for (auto it = frames_innermost_first.rbegin(); it != frames_innermost_first.rend(); ++it) {
    std::string f = normalise_function(*it);
    if (f.empty() || is_startup_frame(f)) continue;
    if (!path.empty() && path.back() == f) continue;  // an inlined frame repeats its caller
    const bool mpi = is_mpi_call(f);
    path.push_back(std::move(f));
    if (mpi) break;
  }
  return path;
}

std::string join_path(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& f : path) {
    if (!out.empty()) out += " > ";
    out += f;
  }
  return out;
}

}  // namespace mpilaunch::launcher
