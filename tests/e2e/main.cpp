// The e2e suite's entry point. CI runs the suites with no stdin: a descriptor 0-2 left closed
// would be handed to the first file or pipe a harness opens, which its later dup2() onto 0-2
// then overwrites (a rank's stdout silently going to /dev/null). They are taken first.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "common/descriptors.hpp"

int main(int argc, char** argv) {
  mpilaunch::reserve_standard_descriptors();
  return doctest::Context(argc, argv).run();
}
