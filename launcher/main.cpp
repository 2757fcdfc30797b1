// mpilaunch: parse argv, run, return the exit code.

#include <csignal>
#include <string>
#include <vector>

#include "common/streaming_heap.hpp"
#include "launcher/run.hpp"

int main(int argc, char** argv) {
  // A closed agent stream or pipe is an error value, never a fatal signal.
  std::signal(SIGPIPE, SIG_IGN);
  mpilaunch::tune_heap_for_streaming();
  return mpilaunch::launcher::run(std::vector<std::string>(argv + 1, argv + argc));
}
