#pragma once
/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.

#include <filesystem>
#include <string>
#include <vector>

namespace mpilaunch::e2e {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "mpilaunch-e2e");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// path()/name as a string.
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Writes `text` to `path`, replacing it; throws on failure.
void write_file(const std::string& path, const std::string& text);
/// The whole file; throws if it cannot be read.
std::string read_file(const std::string& path);
/// Names of the entries in `dir` (not recursive), sorted; empty if it does not exist.
std::vector<std::string> list_dir(const std::filesystem::path& dir);

}  // namespace mpilaunch::e2e
