/* hello: MPI_Init, an Allreduce of the ranks checked against N(N-1)/2, one line per rank. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  char host[256] = "";
  const char* pmix_host = getenv("PMIX_HOSTNAME");
  if (pmix_host == NULL) gethostname(host, sizeof host - 1);
  const int ok = sum == size * (size - 1) / 2;
  printf("hello rank %d of %d host %s sum %d %s\n", rank, size, pmix_host ? pmix_host : host, sum,
         ok ? "ok" : "WRONG");
  MPI_Finalize();
  return ok ? 0 : 2;
}
