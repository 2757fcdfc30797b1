/* Every rank prints many lines, then rank 1 exits with code 2 without MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 200; ++i)
    printf("rank %d line %d ----------------------------------\n", rank, i);
  fflush(stdout);
  if (rank == 1) {
    fprintf(stderr, "rank 1: fatal: input deck missing\n");
    exit(2);
  }
  MPI_Finalize();
  return 0;
}
