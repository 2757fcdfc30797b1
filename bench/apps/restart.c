/* restart STAMP_FILE: a job that fails once and then succeeds, for restart latency.
 * The first attempt is the one that finds no STAMP_FILE: rank 1 appends "death <ns>" and exits
 * with 3 while the other ranks sleep (the launcher must kill them). On a later attempt every
 * rank appends "up <ns>" once MPI_Init and a barrier are done. Restart latency is the last
 * "up" minus "death"; a later attempt's ranks also append "start <ns>" first thing in main,
 * before MPI_Init, so the time to running processes shows apart from Open MPI's own MPI_Init.
 * The file, not an environment variable, marks the attempt, so a plain shell loop around
 * mpirun runs the same program. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void append(const char* path, const char* what) {
  char line[64];
  const int n = snprintf(line, sizeof line, "%s %lld\n", what, now_ns());
  const int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  if (write(fd, line, (size_t)n) != n) perror("restart: write");
  close(fd);
}

int main(int argc, char** argv) {
  if (argc < 2) return 64;
  if (access(argv[1], F_OK) == 0) append(argv[1], "start");
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int first_attempt = access(argv[1], F_OK) != 0;
  MPI_Barrier(MPI_COMM_WORLD); /* everyone has looked before rank 1 creates the file */
  if (first_attempt) {
    if (rank == 1) {
      append(argv[1], "death");
      _exit(3);
    }
    sleep(60);
    return 0;
  }
  append(argv[1], "up");
  MPI_Finalize();
  return 0;
}
