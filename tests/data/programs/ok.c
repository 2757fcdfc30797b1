/* Every rank prints one line and finalizes: the success case. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("rank %d ok\n", rank);
  MPI_Finalize();
  return 0;
}
