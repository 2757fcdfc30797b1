/* failer MODE RANK [VALUE]: rank RANK fails in the way MODE names; every other rank waits in
 * MPI_Barrier, so it hangs until the launcher tears the job down.
 * Modes: exit (_exit(VALUE), no finalize), segv (a null write), abort (MPI_Abort(VALUE)),
 * nofinalize (exit(0) without MPI_Finalize), preinit-exit (_exit(VALUE) before MPI_Init),
 * ok (no failure: every rank finalizes and exits 0), segv-peer-aborts and exit-peer-aborts (RANK
 * crashes, or _exits with 3, while a child of it keeps its stdout open, so its agent reports it
 * late; the lowest other rank sees it gone and calls MPI_Abort(VALUE), which reaches the
 * launcher first, as a rank's reaction to a dead peer can), exit-run-on (RANK _exits with VALUE
 * after MPI_Init; every other rank waits until it is gone, says "outlived rank RANK", finalizes
 * and exits 0: under orte_abort_on_non_zero_status=0 the job runs on). VALUE defaults to 3. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage(void) {
  fprintf(stderr,
          "usage: failer exit|segv|abort|nofinalize|preinit-exit|ok|segv-peer-aborts|"
          "exit-peer-aborts|exit-run-on RANK [VALUE]\n");
  return 64;
}

/* Dies by SIGSEGV from a null write. In the sanitizer build (tools/test's ASan+UBSan pass) UBSan
 * would report the store and exit 1, and ASan's SEGV handler would abort: skip the one and drop
 * the other, so that the launcher sees the same signal in every build. */
__attribute__((no_sanitize("undefined"))) static void write_null(void) {
#ifdef __SANITIZE_ADDRESS__
  signal(SIGSEGV, SIG_DFL);
#endif
  volatile int* volatile null = NULL;
  *null = 1;
}

/* The rank this process will be, read before MPI_Init from the variables PMIx servers set. */
static int rank_before_init(void) {
  const char* names[] = {"PMIX_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    const char* value = getenv(names[i]);
    if (value != NULL) return atoi(value);
  }
  return -1;
}

/* Whether process `pid` has ended: gone, or a zombie its parent has not reaped. */
static int dead(int pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE* f = fopen(path, "r");
  if (f == NULL) return 1;
  char line[512] = "";
  const int got = fgets(line, sizeof line, f) != NULL;
  fclose(f);
  const char* paren = strrchr(line, ')');
  return !got || paren == NULL || paren[1] == '\0' || paren[2] == 'Z' || paren[2] == 'X';
}

/* exit-run-on, after MPI_Init. */
static int run_on(int victim, int value) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int pid = getpid();
  int* pids = malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
  if (rank == victim) {
    printf("failer rank %d: exit %d\n", rank, value);
    fflush(stdout);
    _exit(value);
  }
  /* Gone, or a zombie: the agent has it. A minute at most, then it says so. */
  int i = 0;
  for (; i < 60000 && !dead(pids[victim]); ++i) usleep(1000);
  printf("failer rank %d: %s rank %d\n", rank, i < 60000 ? "outlived" : "gave up on", victim);
  fflush(stdout);
  free(pids);
  MPI_Finalize();
  return 0;
}

/* segv-peer-aborts (crash) and exit-peer-aborts, after MPI_Init. */
static int peer_aborts(int victim, int value, int crash) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int watcher = victim == 0 ? 1 : 0;
  int pid = getpid();
  int* pids = malloc(sizeof(int) * (size_t)size);
  MPI_Allgather(&pid, 1, MPI_INT, pids, 1, MPI_INT, MPI_COMM_WORLD);
  if (rank == victim) {
    if (fork() == 0) { /* holds the victim's stdout until the teardown's SIGTERM */
      alarm(60);
      for (;;) pause();
    }
    printf("failer rank %d: %s, a child keeps stdout open\n", rank, crash ? "segv" : "exit 3");
    fflush(stdout);
    if (crash) write_null();
    _exit(3);
  }
  if (rank == watcher) {
    /* The agent reaps the victim at once; its report waits for the child holding stdout. */
    for (int i = 0; i < 60000 && !dead(pids[victim]); ++i) usleep(1000);
    printf("failer rank %d: rank %d is gone, calling MPI_Abort(%d)\n", rank, victim, value);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, value);
  }
  free(pids);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 3) return usage();
  const char* mode = argv[1];
  const int victim = atoi(argv[2]);
  const int value = argc > 3 ? atoi(argv[3]) : 3;
  const int known = !strcmp(mode, "exit") || !strcmp(mode, "segv") || !strcmp(mode, "abort") ||
                    !strcmp(mode, "nofinalize") || !strcmp(mode, "preinit-exit") ||
                    !strcmp(mode, "ok") || !strcmp(mode, "segv-peer-aborts") ||
                    !strcmp(mode, "exit-peer-aborts") || !strcmp(mode, "exit-run-on");
  if (!known) return usage();

  if (!strcmp(mode, "preinit-exit") && rank_before_init() == victim) {
    printf("failer rank %d: exiting with %d before MPI_Init\n", victim, value);
    fflush(stdout);
    _exit(value);
  }
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!strcmp(mode, "ok")) {
    printf("failer rank %d: ok\n", rank);
    MPI_Finalize();
    return 0;
  }
  if (strstr(mode, "-peer-aborts") != NULL) return peer_aborts(victim, value, mode[0] == 's');
  if (!strcmp(mode, "exit-run-on")) return run_on(victim, value);
  if (rank == victim) {
    printf("failer rank %d: %s %d\n", rank, mode, value);
    fflush(stdout);
    if (!strcmp(mode, "exit")) _exit(value);
    if (!strcmp(mode, "segv")) write_null();
    if (!strcmp(mode, "abort")) MPI_Abort(MPI_COMM_WORLD, value);
    if (!strcmp(mode, "nofinalize")) exit(0);
    _exit(99); /* not reached: each mode above ends the process */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
