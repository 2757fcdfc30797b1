/* Rank 1 dereferences a null pointer; the others wait in a barrier. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) {
    volatile int* p = NULL;
    *p = 42;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
