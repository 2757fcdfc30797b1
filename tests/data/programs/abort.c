/* Rank 1 calls MPI_Abort with the code given as argv[1] (default 7). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    int code = argc > 1 ? atoi(argv[1]) : 7;
    fprintf(stderr, "rank 1: aborting with %d\n", code);
    MPI_Abort(MPI_COMM_WORLD, code);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
