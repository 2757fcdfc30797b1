#pragma once
/// [io] A small file's whole text (/proc and /sys entries and the like); empty when it cannot
/// be read, which callers treat as "nothing known".

#include <fstream>
#include <sstream>
#include <string>

namespace mpilaunch {

inline std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace mpilaunch
