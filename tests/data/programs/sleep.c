/* Every rank sleeps argv[1] seconds (default 30) between MPI_Init and MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int rank = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  printf("rank %d sleeping\n", rank);
  fflush(stdout);
  sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 30u);
  MPI_Finalize();
  return 0;
}
