// mpilaunch: parse argv, run, return the exit code.

#include <string>
#include <vector>

#include "launcher/run.hpp"

int main(int argc, char** argv) {
  return mpilaunch::launcher::run(std::vector<std::string>(argv + 1, argv + argc));
}
