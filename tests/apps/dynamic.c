/* Dynamic processes (issue 24): what a program does with MPI_Comm_spawn, name publishing and
 * accept/connect, one mode per run.
 *   dynamic spawn N        rank 0 of the world spawns N copies of this program, which get 42
 *                          through the intercommunicator and print it, then all disconnect
 *   dynamic spawn N KEY VALUE  the same with the info key KEY set to VALUE (map_by node)
 *   dynamic spawn-nested N [KEY VALUE]  as spawn N; then each child's world spawns 1 more copy
 *                          (a spawned process's own MPI_Comm_spawn, no info), which gets 43 and
 *                          sends 143 back to child 0, which sends 1143 back to parent 0: each
 *                          prints what came back ("child 0 got back 143", "parent 0 got back 1143")
 *   dynamic spawn-nested-flaky N  as spawn-nested N, but in the run's first attempt the
 *                          grandchild exits 3 before MPI_Init (restarts)
 *   dynamic spawn-env N    as spawn N; each process also prints its OMPI_MCA_mpi_oversubscribe
 *   dynamic spawn-flaky N  as spawn N, but in the run's first attempt (MPILAUNCH_ATTEMPT=1) the
 *                          children exit 3 before MPI_Init (restarts)
 *   dynamic spawn-hang     rank 0 spawns 1 copy; each side prints "ready" and waits in MPI_Recv
 *                          for the other, for ever (stacks of spawned processes)
 *   dynamic spawn-missing  rank 0 spawns a program that does not exist
 *   dynamic spawn-dies HOW rank 0 spawns 1 copy that ends before MPI_Init: HOW is an exit
 *                          status, or "kill" (the child sends itself SIGKILL)
 *   dynamic spawn-nested-dies HOW  rank 0 spawns 1 copy that runs spawn-dies HOW (its child, the
 *                          first's grandchild, ends before MPI_Init), prints "ready", waits for
 * ever dynamic publish        rank 0 publishes a service name dynamic names          rank 0
 * publishes a service name, the others look it up and print what they found; after rank 0
 * unpublished it, and for a name nobody published, each prints "gone" (errors return, not abort)
 *   dynamic port-accept    rank 0 opens a port, sends its name to the others in MPI_COMM_WORLD,
 *                          accepts on its own; the others connect as a group
 *   dynamic name-accept    the same through MPI_Publish_name / MPI_Lookup_name */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_oversubscribe(const char* who, int rank) {
  const char* v = getenv("OMPI_MCA_mpi_oversubscribe");
  printf("%s %d oversubscribe=%s\n", who, rank, v != NULL ? v : "unset");
  /* Its affinity as a kernel CPU list ("0-1,4"), as the spawn event's cpus say it. */
  cpu_set_t set;
  char list[4096] = "";
  size_t used = 0;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (!CPU_ISSET(c, &set)) continue;
      int last = c;
      while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
      used += (size_t)snprintf(list + used, sizeof list - used, last > c ? "%s%d-%d" : "%s%d",
                               used > 0 ? "," : "", c, last);
      if (used >= sizeof list) break;
      c = last;
    }
  printf("%s %d cpus=%s\n", who, rank, list);
}

static void wait_for_ever(MPI_Comm inter) {
  int v;
  printf("ready\n");
  fflush(stdout);
  MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
}

/* with_env: 1 prints the environment, 2 waits for ever, 3 spawns one more copy (a child's own
 * MPI_Comm_spawn) and passes its answer up, 4 (that copy) answers its parent, 5 as 3 with a
 * copy that exits 3 before MPI_Init in the first attempt. */
static void child(MPI_Comm parent, int with_env, char* program) {
  int rank, size, v = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (with_env == 2) wait_for_ever(parent);
  MPI_Bcast(&v, 1, MPI_INT, 0, parent);
  printf("child %d of %d got %d\n", rank, size, v);
  fflush(stdout);
  if (with_env == 1) print_oversubscribe("child", rank);
  if (with_env == 4 && rank == 0) {
    v += 100;
    MPI_Send(&v, 1, MPI_INT, 0, 0, parent);
  }
  if (with_env == 3 || with_env == 5) {
    MPI_Comm inter;
    char* grandchild_argv[] = {with_env == 5 ? (char*)"flaky-child" : (char*)"child", (char*)"leaf",
                               NULL};
    int back = 0;
    v = 43;
    MPI_Comm_spawn(program, grandchild_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                   MPI_ERRCODES_IGNORE);
    MPI_Bcast(&v, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    if (rank == 0) {
      MPI_Recv(&back, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
      printf("child 0 got back %d\n", back);
      back += 1000;
      MPI_Send(&back, 1, MPI_INT, 0, 0, parent);
    }
    MPI_Comm_disconnect(&inter);
    printf("child %d spawned 1\n", rank);
  }
  MPI_Comm_disconnect(&parent);
}

static void names(int rank) {
  char port[MPI_MAX_PORT_NAME];
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (rank == 0 && MPI_Publish_name("mpilaunch-names", MPI_INFO_NULL, "port-of-rank-0") != 0)
    printf("rank 0 could not publish\n");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) {
    int rc = MPI_Lookup_name("mpilaunch-names", MPI_INFO_NULL, port);
    printf("rank %d found %s\n", rank, rc == MPI_SUCCESS ? port : "gone");
    rc = MPI_Lookup_name("mpilaunch-nobody", MPI_INFO_NULL, port);
    printf("rank %d unpublished name: %s\n", rank, rc == MPI_SUCCESS ? port : "gone");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0 && MPI_Unpublish_name("mpilaunch-names", MPI_INFO_NULL, "port-of-rank-0") != 0)
    printf("rank 0 could not unpublish\n");
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) {
    int rc = MPI_Lookup_name("mpilaunch-names", MPI_INFO_NULL, port);
    printf("rank %d after unpublish: %s\n", rank, rc == MPI_SUCCESS ? port : "gone");
  }
}

static void accept_or_connect(int rank, int by_name) {
  MPI_Comm half, inter;
  char port[MPI_MAX_PORT_NAME];
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &half);
  if (rank == 0) MPI_Open_port(MPI_INFO_NULL, port);
  if (by_name) {
    if (rank == 0) MPI_Publish_name("mpilaunch-dynamic", MPI_INFO_NULL, port);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) MPI_Lookup_name("mpilaunch-dynamic", MPI_INFO_NULL, port);
  } else {
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  }
  if (rank == 0)
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
  else
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
  printf("rank %d connected\n", rank);
  MPI_Comm_disconnect(&inter);
  if (by_name && rank == 0) MPI_Unpublish_name("mpilaunch-dynamic", MPI_INFO_NULL, port);
  MPI_Comm_free(&half);
}

int main(int argc, char** argv) {
  int rank;
  MPI_Comm parent;
  const char* attempt = getenv("MPILAUNCH_ATTEMPT");
  if (argc > 1 && strcmp(argv[1], "flaky-child") == 0 && attempt != NULL &&
      strcmp(attempt, "1") == 0)
    return 3;
  if (argc > 2 && strcmp(argv[1], "die-before-init") == 0) {
    if (strcmp(argv[2], "kill") == 0) raise(SIGKILL);
    return atoi(argv[2]);
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_get_parent(&parent);
  const char* mode = argc > 1 ? argv[1] : "spawn";
  if (parent != MPI_COMM_NULL && strcmp(mode, "spawn-dies") != 0) {
    child(parent,
          argc < 3                               ? 0
          : strcmp(argv[2], "env") == 0          ? 1
          : strcmp(argv[2], "hang") == 0         ? 2
          : strcmp(argv[2], "nested") == 0       ? 3
          : strcmp(argv[2], "leaf") == 0         ? 4
          : strcmp(argv[2], "nested-flaky") == 0 ? 5
                                                 : 0,
          argv[0]);
  } else if (strcmp(mode, "spawn") == 0 || strcmp(mode, "spawn-env") == 0 ||
             strcmp(mode, "spawn-flaky") == 0 || strcmp(mode, "spawn-nested") == 0 ||
             strcmp(mode, "spawn-nested-flaky") == 0) {
    int n = argc > 2 ? atoi(argv[2]) : 2, v = 42;
    MPI_Comm inter;
    char* child_argv[] = {strcmp(mode, "spawn-flaky") == 0 ? "flaky-child" : "child",
                          strcmp(mode, "spawn-env") == 0            ? "env"
                          : strcmp(mode, "spawn-nested") == 0       ? "nested"
                          : strcmp(mode, "spawn-nested-flaky") == 0 ? "nested-flaky"
                                                                    : NULL,
                          NULL};
    if (strcmp(mode, "spawn-env") == 0) print_oversubscribe("parent", rank);
    MPI_Info info = MPI_INFO_NULL;
    if (argc > 4) {
      MPI_Info_create(&info);
      MPI_Info_set(info, argv[3], argv[4]);
    }
    MPI_Comm_spawn(argv[0], child_argv, n, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    MPI_Bcast(&v, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    if (strncmp(mode, "spawn-nested", 12) == 0 && rank == 0) {
      MPI_Recv(&v, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
      printf("parent 0 got back %d\n", v);
    }
    MPI_Comm_disconnect(&inter);
    printf("parent %d spawned %d\n", rank, n);
  } else if (strcmp(mode, "spawn-hang") == 0) {
    MPI_Comm inter;
    char* child_argv[] = {(char*)"child", (char*)"hang", NULL};
    MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                   MPI_ERRCODES_IGNORE);
    wait_for_ever(inter);
  } else if (strcmp(mode, "spawn-missing") == 0) {
    MPI_Comm inter;
    MPI_Comm_spawn("./mpilaunch-no-such-program", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                   MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Comm_disconnect(&inter);
  } else if (strcmp(mode, "spawn-dies") == 0) {
    MPI_Comm inter;
    char* child_argv[] = {(char*)"die-before-init", argc > 2 ? argv[2] : (char*)"3", NULL};
    int rc = MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                            MPI_ERRCODES_IGNORE);
    printf("parent %d: MPI_Comm_spawn returned %d\n", rank, rc);
    if (rc == MPI_SUCCESS) MPI_Comm_disconnect(&inter);
  } else if (strcmp(mode, "spawn-nested-dies") == 0) {
    MPI_Comm inter;
    char* child_argv[] = {(char*)"spawn-dies", argc > 2 ? argv[2] : (char*)"3", NULL};
    MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                   MPI_ERRCODES_IGNORE);
    wait_for_ever(inter);
  } else if (strcmp(mode, "publish") == 0) {
    if (rank == 0) MPI_Publish_name("mpilaunch-dynamic", MPI_INFO_NULL, "port");
  } else if (strcmp(mode, "names") == 0) {
    names(rank);
  } else if (strcmp(mode, "port-accept") == 0) {
    accept_or_connect(rank, 0);
  } else if (strcmp(mode, "name-accept") == 0) {
    accept_or_connect(rank, 1);
  } else {
    fprintf(stderr, "dynamic: unknown mode %s\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}
