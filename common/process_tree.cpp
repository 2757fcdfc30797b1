#include "common/process_tree.hpp"

#include <dirent.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "common/file_text.hpp"

namespace mpilaunch {

std::vector<pid_t> process_tree(pid_t pid, std::size_t limit) {
  std::vector<pid_t> tree{pid};
  for (std::size_t i = 0; i < tree.size() && tree.size() < limit; ++i) {
    const std::string tasks = "/proc/" + std::to_string(tree[i]) + "/task";
    DIR* dir = ::opendir(tasks.c_str());
    if (dir == nullptr) continue;
    while (const dirent* e = ::readdir(dir)) {
      if (e->d_name[0] == '.') continue;
      const std::string children = file_text(tasks + "/" + e->d_name + "/children");
      std::string_view rest = children;
      while (!rest.empty()) {
        const auto sp = rest.find(' ');
        const std::string word(rest.substr(0, sp));
        if (const long child = std::strtol(word.c_str(), nullptr, 10); child > 0)
          tree.push_back(static_cast<pid_t>(child));
        rest.remove_prefix(sp == std::string_view::npos ? rest.size() : sp + 1);
      }
    }
    ::closedir(dir);
  }
  return tree;
}

}  // namespace mpilaunch
