/* flaky FAIL_UNTIL RANK CODE: during attempts before FAIL_UNTIL (MPILAUNCH_ATTEMPT), rank RANK
 * exits with CODE after MPI_Init; from attempt FAIL_UNTIL on every rank succeeds. Each rank
 * prints "attempt A rank R" first, so tests can see which attempt ran. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: flaky FAIL_UNTIL RANK CODE\n");
    return 64;
  }
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* attempt_text = getenv("MPILAUNCH_ATTEMPT");
  const int attempt = attempt_text ? atoi(attempt_text) : 0;
  printf("attempt %d rank %d of max %s\n", attempt, rank, getenv("MPILAUNCH_MAX_RESTARTS"));
  fflush(stdout);
  if (attempt < atoi(argv[1]) && rank == atoi(argv[2])) exit(atoi(argv[3]));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
