/* Rank 1 sends itself the signal argv[1] (default SIGKILL), as the OOM killer would. */
#include <mpi.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) kill(getpid(), argc > 1 ? atoi(argv[1]) : SIGKILL);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
