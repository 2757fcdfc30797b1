#include "launcher/start/lazy_library.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "common/text_format.hpp"

namespace mpilaunch::launcher {

LazyLibrary::LazyLibrary(std::string_view label, std::string_view phase, std::string (*soname)(),
                         std::span<const char* const> names, std::string_view requirement)
    : label_(label), phase_(phase), soname_(soname), names_(names), requirement_(requirement) {}

Status LazyLibrary::load() {
  std::call_once(once_, [this] {
    auto failure = [this](std::string detail) {
      return Error{.kind = ErrorKind::AgentStartFailed,
                   .phase = std::string(phase_),
                   .detail = std::move(detail)};
    };
    // Local: the library's symbols must not take the place of the launcher's forwarders or of
    // any other library's symbols.
    const std::string library = soname_();
    void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      outcome_ = failure(mpilaunch::format("{} could not be loaded: {}", label_, ::dlerror()));
      return;
    }
    std::vector<void*> found(names_.size());
    for (std::size_t i = 0; i < names_.size(); ++i) {
      found[i] = ::dlsym(handle, names_[i]);
      if (found[i] == nullptr) {
        outcome_ =
            failure(mpilaunch::format("{} has no {} ({})", library, names_[i], requirement_));
        return;
      }
    }
    functions_ = std::move(found);
  });
  return outcome_;
}

void* LazyLibrary::function(std::size_t index) {
  if (Status st = load(); !st) {
    std::fprintf(stderr, "mpilaunch: %s\n", st.error().detail.c_str());
    std::abort();
  }
  return functions_[index];
}

}  // namespace mpilaunch::launcher
