// mpilaunch: parse argv, run, return the exit code.

#include <csignal>
#include <string>
#include <vector>

#include "common/descriptors.hpp"
#include "common/streaming_heap.hpp"
#include "launcher/run.hpp"

int main(int argc, char** argv) {
  // Before anything opens a descriptor: a closed 0-2 would be taken by a socket or eventfd.
  mpilaunch::reserve_standard_descriptors();
  mpilaunch::inherit_nothing_from(3);  // the caller's open descriptors reach no agent or rank
  // A closed agent stream or pipe is an error value, never a fatal signal.
  std::signal(SIGPIPE, SIG_IGN);
  mpilaunch::tune_heap_for_streaming();
  return mpilaunch::launcher::run(std::vector<std::string>(argv + 1, argv + argc));
}
