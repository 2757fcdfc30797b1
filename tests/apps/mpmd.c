/* mpmd [ARGS...]: one line per rank, "rank=R appnum=A contexts=N size=S args=ARGS var=$MPMD_VAR
 * sum=ok|bad", after an MPI_Allreduce over MPI_COMM_WORLD (every context's ranks) checked
 * against S(S-1)/2. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int* appnum = NULL;
  int found = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &found);
  /* The number of contexts, as every rank sees it: the largest MPI_APPNUM plus one. */
  int mine = found ? *appnum : -1, largest = -1;
  MPI_Allreduce(&mine, &largest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  char args[512] = "";
  for (int i = 1; i < argc; ++i) {
    strncat(args, i > 1 ? "," : "", sizeof args - strlen(args) - 1);
    strncat(args, argv[i], sizeof args - strlen(args) - 1);
  }
  const char* var = getenv("MPMD_VAR");
  printf("rank=%d appnum=%d contexts=%d size=%d args=%s var=%s sum=%s\n", rank, mine, largest + 1,
         size, args, var != NULL ? var : "(unset)", sum == size * (size - 1) / 2 ? "ok" : "bad");
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
