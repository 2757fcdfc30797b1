/* Rank 1 exits with code 3 after MPI_Finalize; the others exit 0. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Finalize();
  if (rank == 1) {
    fprintf(stderr, "rank 1: giving up with code 3\n");
    return 3;
  }
  return 0;
}
