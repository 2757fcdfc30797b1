/* hello: MPI_Init, an Allreduce of the ranks checked against N(N-1)/2, one line per rank.
 * Built twice by bench/run: against Open MPI (mpicc.openmpi) and MPICH (mpicc.mpich). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const int ok = sum == size * (size - 1) / 2;
  printf("hello rank %d of %d sum %d %s\n", rank, size, sum, ok ? "ok" : "WRONG");
  MPI_Finalize();
  return ok ? 0 : 2;
}
