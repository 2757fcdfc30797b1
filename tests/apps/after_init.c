/* after_init COMMAND: runs COMMAND with /bin/sh between MPI_Init and MPI_Finalize, on the
 * rank's own stdout and stderr, and exits with its status. MPI_Init returns only after the
 * launcher has relayed the job's first fence, so COMMAND sees the launcher past the rank's
 * start. */
#include <mpi.h>
#include <stdlib.h>
#include <sys/wait.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int status = argc > 1 ? system(argv[1]) : 0;
  MPI_Finalize();
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
