/* deadlock MODE RANK: a job that hangs in a known place, for stack-trace tests.
 *   recv    RANK waits in MPI_Recv for a message nobody sends; the others wait in MPI_Barrier
 *   read    RANK blocks reading a pipe nobody writes (outside MPI) in read_input(); the others
 *           wait in MPI_Allreduce, called from solve()
 *   init    RANK never calls MPI_Init (it waits in pause()); the others wait in MPI_Init
 * Each rank prints "ready" just before it blocks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int me_from_env(void) {
  const char* r = getenv("OMPI_COMM_WORLD_RANK");
  if (!r) r = getenv("PMI_RANK");
  return r ? atoi(r) : 0;
}

static void ready(void) {
  printf("ready\n");
  fflush(stdout);
}

__attribute__((noinline)) static void read_input(void) {
  int fds[2];
  char c;
  if (pipe(fds) != 0) return;
  ready();
  while (read(fds[0], &c, 1) != 0) {
  }
}

__attribute__((noinline)) static void solve(void) {
  double x = 1.0, sum = 0.0;
  ready();
  MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

__attribute__((noinline)) static void wait_for_message(void) {
  int v = 0;
  ready();
  MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: deadlock recv|read|init RANK\n");
    return 64;
  }
  const int odd = atoi(argv[2]);
  if (strcmp(argv[1], "init") == 0 && me_from_env() == odd) {
    ready();
    for (;;) pause();
  }
  MPI_Init(&argc, &argv);
  int me = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (strcmp(argv[1], "recv") == 0) {
    if (me == odd)
      wait_for_message();
    else {
      ready();
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } else if (strcmp(argv[1], "read") == 0) {
    if (me == odd)
      read_input();
    else
      solve();
  }
  MPI_Finalize();
  return 0;
}
