#pragma once
/// A shared library the launcher opens on first use instead of linking it (libssh, and the
/// libcrypto that libssh brings): dlopen with RTLD_LOCAL, then every function the launcher calls
/// in it, resolved all at once, so that a library lacking one is an error before any is called.
/// Callers define the library's functions as forwarders (libssh_loader.cpp, sha256.cpp) that
/// call through function(). No sockets or processes: loading a library is the only effect.

#include <array>
#include <cstddef>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace mpilaunch::launcher {

class LazyLibrary {
 public:
  /// `label` names the library in errors, `phase` is theirs (docs/errors.md); `soname` is read
  /// on the first load (it may come from the environment); `names` are the functions, in index
  /// order; `requirement` says which version has them all.
  LazyLibrary(std::string_view label, std::string_view phase, std::string (*soname)(),
              std::span<const char* const> names, std::string_view requirement);

  /// Opens the library and resolves every function, once; later calls return the first
  /// outcome. Thread-safe. Errors: AgentStartFailed in `phase` (never retried), with the
  /// loader's reason.
  Status load();

  /// The address of names[index], for a forwarder. Loads the library first; a caller that
  /// skipped load() and meets a load failure here gets a message and abort().
  void* function(std::size_t index);

 private:
  std::string_view label_;
  std::string_view phase_;
  std::string (*soname_)();
  std::span<const char* const> names_;
  std::string_view requirement_;
  std::once_flag once_;
  Status outcome_;
  std::vector<void*> functions_;
};

}  // namespace mpilaunch::launcher

// A library's function list is a macro LIST(X) calling X(ret, name, params, args) once per
// function. In an anonymous namespace of mpilaunch::launcher, MPILAUNCH_LAZY_TABLE(LIST, LIBRARY)
// declares the indices k_<name>, their names kNames, and function<Fn>(index), which calls
// through LIBRARY(), the LazyLibrary& that the file defines next. At file scope,
// MPILAUNCH_LAZY_FORWARDERS(LIST) defines the forwarders: extern "C" functions with the
// library's own names and types (checked against its header), so that callers write ordinary
// calls.
#define MPILAUNCH_LAZY_INDEX(ret, name, params, args) k_##name,
#define MPILAUNCH_LAZY_NAME(ret, name, params, args) #name,
#define MPILAUNCH_LAZY_TABLE(LIST, LIBRARY)                                               \
  enum Function : std::size_t { LIST(MPILAUNCH_LAZY_INDEX) kFunctionCount };              \
  constexpr std::array<const char*, kFunctionCount> kNames = {LIST(MPILAUNCH_LAZY_NAME)}; \
  LazyLibrary& LIBRARY();                                                                 \
  template <class Fn>                                                                     \
  Fn* function(Function f) {                                                              \
    return reinterpret_cast<Fn*>(LIBRARY().function(f));                                  \
  }
#define MPILAUNCH_LAZY_FORWARD(ret, name, params, args)                                         \
  extern "C" ret name params {                                                                  \
    return mpilaunch::launcher::function<decltype(::name)>(mpilaunch::launcher::k_##name) args; \
  }
#define MPILAUNCH_LAZY_FORWARDERS(LIST) LIST(MPILAUNCH_LAZY_FORWARD)
