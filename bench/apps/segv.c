/* segv STAMP_FILE DELAY_MS: after MPI_Init and a barrier, rank 1 sleeps DELAY_MS, writes the
 * CLOCK_REALTIME nanoseconds to STAMP_FILE and raises SIGSEGV; every other rank sleeps 60 s, so
 * the launcher must notice the death and kill them. The bench times STAMP to launcher exit. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 1) {
    sleep(60);
    MPI_Finalize();
    return 0;
  }
  usleep((useconds_t)(argc > 2 ? atoi(argv[2]) : 200) * 1000u);
  FILE* f = fopen(argv[1], "w");
  if (f == NULL) return 70;
  fprintf(f, "%lld\n", now_ns());
  fclose(f);
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
  return 71; /* not reached */
}
