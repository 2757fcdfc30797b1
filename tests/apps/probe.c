/* probe: what a rank saw, for the mpirun comparison suite (tests/compat/). Each rank reads its
 * stdin to the end, then writes "key=value" lines to $PROBE_OUT/rank.<world rank> (when
 * PROBE_OUT is set): world size and rank, MPI_APPNUM, MPI_UNIVERSE_SIZE, its host and the lowest
 * world rank sharing its node (MPI_COMM_TYPE_SHARED), the bytes of stdin it received and their
 * FNV-1a checksum, what its descriptors 0-2 are (pipe, pty, devnull, ...), its arguments,
 * working directory, CPU affinity, how many ranks share its NUMA node, socket, L3 and L2 cache
 * and core as Open MPI sees them (MPI_Comm_split_type with OMPI_COMM_TYPE_*: from the locality
 * the launcher's PMIx server gave it) and a set of environment variables (a fixed list plus the
 * comma-separated names in PROBE_ENV). It prints one line to stdout and one to stderr, and
 * exits with $PROBE_EXIT_CODE when its rank is $PROBE_EXIT_RANK (likewise MPI_Abort with
 * PROBE_ABORT_RANK/CODE, a signal with PROBE_SIGNAL_RANK/PROBE_SIGNAL). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char* const fixed_env[] = {
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_LOCAL_SIZE",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "OMPI_COMM_WORLD_NODE_RANK",
    "OMPI_UNIVERSE_SIZE",
    "OMPI_APP_CTX_NUM_PROCS",
    "OMPI_FIRST_RANKS",
    "OMPI_NUM_APP_CTX",
    "OMPI_COMMAND",
    "OMPI_ARGV",
    "OMPI_MCA_orte_app_num",
    "OMPI_MCA_mpi_oversubscribe",
    "OMPI_MCA_mpi_yield_when_idle",
    "OMPI_MCA_orte_bound_at_launch",
    "PMIX_APPNUM",
    "PMIX_RANK",
};

static void write_cpus(FILE* out) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) {
    fprintf(out, "cpus=(unknown)\n");
    return;
  }
  fprintf(out, "cpus=");
  int first = 1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    fprintf(out, first ? "%d" : ",%d", cpu);
    if (last > cpu) fprintf(out, "-%d", last);
    first = 0;
    cpu = last;
  }
  fprintf(out, "\n");
}

/* What descriptor `fd` is: closed, devnull, pty, tty, pipe, socket, file or other. */
static const char* fd_kind(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return "closed";
  if (S_ISFIFO(st.st_mode)) return "pipe";
  if (S_ISSOCK(st.st_mode)) return "socket";
  if (S_ISREG(st.st_mode)) return "file";
  if (S_ISCHR(st.st_mode)) {
    char link[64], target[256];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    if (strcmp(target, "/dev/null") == 0) return "devnull";
    if (strncmp(target, "/dev/pts/", 9) == 0) return "pty";
    return isatty(fd) ? "tty" : "chardev";
  }
  return "other";
}

static void write_env(FILE* out, const char* name) {
  const char* value = getenv(name);
  if (value != NULL)
    fprintf(out, "env.%s=%s\n", name, value);
  else
    fprintf(out, "env.%s unset\n", name);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  int flag = 0;
  int* attr = NULL;
  char appnum[32] = "unset", universe[32] = "unset";
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &attr, &flag);
  if (flag) snprintf(appnum, sizeof appnum, "%d", *attr);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &attr, &flag);
  if (flag) snprintf(universe, sizeof universe, "%d", *attr);

  char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
  int host_len = 0;
  MPI_Get_processor_name(host, &host_len);

  MPI_Comm node;
  int node_leader = 0, local_size = 0, rank_sum = 0;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &local_size);
  MPI_Allreduce(&rank, &node_leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  MPI_Allreduce(&rank, &rank_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

  /* Open MPI's own split types: ranks it knows to share the object (PMIX_LOCALITY_STRING). */
  const int split_types[] = {OMPI_COMM_TYPE_NUMA, OMPI_COMM_TYPE_SOCKET, OMPI_COMM_TYPE_L3CACHE,
                             OMPI_COMM_TYPE_L2CACHE, OMPI_COMM_TYPE_CORE};
  const char* const split_names[] = {"numa", "socket", "l3cache", "l2cache", "core"};
  int split_sizes[5] = {0, 0, 0, 0, 0};
  for (int i = 0; i < 5; ++i) {
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, split_types[i], 0, MPI_INFO_NULL, &shared);
    if (shared != MPI_COMM_NULL) {
      MPI_Comm_size(shared, &split_sizes[i]);
      MPI_Comm_free(&shared);
    }
  }

  /* Before anything is read or written: what the launcher made of descriptors 0-2. */
  const char* kinds[3] = {fd_kind(0), fd_kind(1), fd_kind(2)};

  /* All of stdin: mpirun gives rank 0 the launcher's and the others /dev/null. */
  uint64_t sum = 14695981039346656037ULL;
  long long bytes = 0;
  char buffer[65536];
  for (;;) {
    ssize_t got = read(0, buffer, sizeof buffer);
    if (got <= 0) break;
    for (ssize_t i = 0; i < got; ++i) {
      sum ^= (unsigned char)buffer[i];
      sum *= 1099511628211ULL;
    }
    bytes += got;
  }

  const char* dir = getenv("PROBE_OUT");
  if (dir != NULL && *dir != '\0') {
    char path[4096];
    snprintf(path, sizeof path, "%s/rank.%d", dir, rank);
    FILE* out = fopen(path, "w");
    if (out == NULL) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(out, "size=%d\nrank=%d\nappnum=%s\nuniverse=%s\n", size, rank, appnum, universe);
    fprintf(out, "host=%s\nnode_leader=%d\nlocal_size=%d\n", host, node_leader, local_size);
    fprintf(out, "allreduce=%s\n", rank_sum == size * (size - 1) / 2 ? "ok" : "wrong");
    for (int i = 0; i < 5; ++i) fprintf(out, "sharing.%s=%d\n", split_names[i], split_sizes[i]);
    fprintf(out, "stdin_bytes=%lld\nstdin_fnv=%016llx\n", bytes, (unsigned long long)sum);
    fprintf(out, "fd0=%s\nfd1=%s\nfd2=%s\n", kinds[0], kinds[1], kinds[2]);
    fprintf(out, "argc=%d\n", argc);
    for (int i = 0; i < argc; ++i) fprintf(out, "argv.%d=%s\n", i, argv[i]);
    char cwd[4096];
    fprintf(out, "cwd=%s\n", getcwd(cwd, sizeof cwd) != NULL ? cwd : "(unknown)");
    write_cpus(out);
    for (size_t i = 0; i < sizeof fixed_env / sizeof fixed_env[0]; ++i)
      write_env(out, fixed_env[i]);
    const char* extra = getenv("PROBE_ENV");
    if (extra != NULL) {
      char names[4096];
      snprintf(names, sizeof names, "%s", extra);
      char* save = NULL;
      for (char* name = strtok_r(names, ",", &save); name != NULL;
           name = strtok_r(NULL, ",", &save))
        write_env(out, name);
    }
    if (fclose(out) != 0) {
      perror(path);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }

  /* PROBE_ABORT_RANK/CODE: that rank calls MPI_Abort, once every rank's report is written. */
  MPI_Barrier(MPI_COMM_WORLD);
  const char* abort_rank = getenv("PROBE_ABORT_RANK");
  const char* abort_code = getenv("PROBE_ABORT_CODE");
  if (abort_rank != NULL && abort_code != NULL && atoi(abort_rank) == rank)
    MPI_Abort(MPI_COMM_WORLD, atoi(abort_code));

  printf("probe rank %d of %d\n", rank, size);
  fflush(stdout);
  fprintf(stderr, "probe rank %d stderr\n", rank);
  MPI_Finalize();

  /* PROBE_SIGNAL_RANK/SIGNAL: that rank kills itself with the signal at the end. */
  const char* signal_rank = getenv("PROBE_SIGNAL_RANK");
  const char* signal_number = getenv("PROBE_SIGNAL");
  if (signal_rank != NULL && signal_number != NULL && atoi(signal_rank) == rank) {
    signal(atoi(signal_number), SIG_DFL);
    raise(atoi(signal_number));
  }
  const char* exit_rank = getenv("PROBE_EXIT_RANK");
  const char* exit_code = getenv("PROBE_EXIT_CODE");
  if (exit_rank != NULL && exit_code != NULL && atoi(exit_rank) == rank) return atoi(exit_code);
  return 0;
}
