#pragma once
/// [io] A file a user names or places (config files, host files, appfiles, --tune files, Open
/// MPI's parameter files) read whole, but never more than its caller's limit: a file that is
/// too large, a directory or a device (/dev/zero) is refused with a message that says which and
/// why, instead of being read until memory runs out.

#include <cstddef>
#include <string>

namespace mpilaunch {

struct BoundedFile {
  enum class Outcome {
    Read,        // text holds the whole file
    Missing,     // no such file (ENOENT, ENOTDIR)
    Directory,   // a directory, not a file
    TooLarge,    // more than the limit
    Unreadable,  // open or read failed otherwise (permission, I/O error)
  };
  Outcome outcome = Outcome::Read;
  std::string text;
  /// What went wrong, for a message: "PATH: cannot be read: Permission denied", "PATH: is a
  /// directory", "PATH: larger than 16 MiB"; empty when the file was read.
  std::string problem;
};

/// The text of `path`, at most `max_bytes` of it. A pipe or a FIFO (`--app <(...)`) is read as
/// it comes, up to the same limit.
BoundedFile read_bounded_file(const std::string& path, std::size_t max_bytes);

}  // namespace mpilaunch
