/* stall MODE RANK: rank RANK misbehaves, the others run MPI_Init and a barrier.
 *   before-init  RANK prints "stalled" and sleeps before MPI_Init (wire-up timeout tests)
 *   sigusr1      every rank enters MPI, prints "ready", waits for SIGUSR1, prints
 *                "got SIGUSR1" and finalizes (signal forwarding tests; RANK unused)
 *   deaf         every rank ignores SIGTERM and SIGINT, enters MPI, prints "ready" and
 *                waits forever: only SIGKILL ends it (escalation tests; RANK unused) */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1 = 0;
static void on_usr1(int sig) {
  (void)sig;
  got_usr1 = 1;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: stall before-init|sigusr1|deaf RANK\n");
    return 64;
  }
  const char* env_rank = getenv("OMPI_COMM_WORLD_RANK");
  const int me = env_rank ? atoi(env_rank) : 0;
  if (strcmp(argv[1], "before-init") == 0 && me == atoi(argv[2])) {
    printf("stalled\n");
    fflush(stdout);
    for (;;) pause();
  }
  signal(SIGUSR1, on_usr1);
  if (strcmp(argv[1], "deaf") == 0) {
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
  }
  MPI_Init(&argc, &argv);
  if (strcmp(argv[1], "deaf") == 0) {
    printf("ready\n");
    fflush(stdout);
    for (;;) pause();
  }
  if (strcmp(argv[1], "sigusr1") == 0) {
    printf("ready\n");
    fflush(stdout);
    while (!got_usr1) usleep(1000);
    printf("got SIGUSR1\n");
    fflush(stdout);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
