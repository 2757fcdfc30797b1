#pragma once
/// Cuts a byte stream that arrives in arbitrary chunks into lines (without '\n'). A line longer
/// than kMaxPendingBytes is handed on in pieces, so memory stays bounded. Pure.

#include <cstddef>
#include <string>
#include <string_view>

namespace mpilaunch::launcher {

class LineSplitter {
 public:
  static constexpr std::size_t kMaxPendingBytes = 64 * 1024;

  /// Calls `on_line(std::string_view)` for every line completed by `chunk`.
  template <class OnLine>
  void push(std::string_view chunk, OnLine&& on_line) {
    std::size_t start = 0;
    for (std::size_t nl = chunk.find('\n'); nl != std::string_view::npos;
         nl = chunk.find('\n', start)) {
      if (pending_.empty()) {
        on_line(chunk.substr(start, nl - start));
      } else {
        pending_.append(chunk.substr(start, nl - start));
        on_line(std::string_view(pending_));
        pending_.clear();
      }
      start = nl + 1;
    }
    pending_.append(chunk.substr(start));
    if (pending_.size() > kMaxPendingBytes) {
      on_line(std::string_view(pending_));
      pending_.clear();
    }
  }

  /// The stream ended: a last line without '\n' is still a line.
  template <class OnLine>
  void finish(OnLine&& on_line) {
    if (!pending_.empty()) on_line(std::string_view(pending_));
    pending_.clear();
  }

 private:
  std::string pending_;
};

}  // namespace mpilaunch::launcher
