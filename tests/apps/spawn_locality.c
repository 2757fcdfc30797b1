/* spawn_locality: where PMIx says processes started by MPI_Comm_spawn run, as Open MPI's
 * MPI_Init in the child asks it. Run as "spawn_locality N [M [K]]": the job's ranks spawn N
 * copies of the program; with M, those children's world spawns M more (grandchildren, job 3),
 * with K those spawn K (job 4). Every process prints one line
 *   rank=R job=parent|child|grandchild|great-grandchild cpuset=LIST locality=STRING cpus=LIST
 * with its own PMIX_CPUSET and PMIX_LOCALITY_STRING as its server holds them (PMIX_OPTIONAL, as
 * Open MPI reads them; "-" where there is none or the string is empty: Open MPI reads both
 * alike) and the CPUs it may run on (Cpus_allowed_list). The e2e suite compares the lines under
 * mpilaunch and under mpirun 4.1.4. */
#include <mpi.h>
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmix_start.h"

static void report(const char* job) {
  pmix_proc_t me;
  if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
    printf("rank=? job=%s PMIx_Init failed\n", job);
    return;
  }
  printf("rank=%u job=%s", (unsigned)me.rank, job);
  print_pmix_string(&me, "cpuset", PMIX_CPUSET, "-");
  print_pmix_string(&me, "locality", PMIX_LOCALITY_STRING, "-");
  FILE* status = fopen("/proc/self/status", "r");
  char line[512];
  while (status != NULL && fgets(line, sizeof line, status) != NULL)
    if (strncmp(line, "Cpus_allowed_list:", 18) == 0) {
      const char* list = line + 18 + strspn(line + 18, " \t");
      printf(" cpus=%.*s", (int)strcspn(list, "\n"), list);
    }
  if (status != NULL) fclose(status);
  printf("\n");
  fflush(stdout);
  PMIx_Finalize(NULL, 0);
}

int main(int argc, char** argv) {
  static const char* const kJobs[] = {"parent", "child", "grandchild", "great-grandchild"};
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  /* A spawned process gets its level as argv[1], then the counts still to spawn. */
  int level = 0;
  int first_count = 1;
  if (parent != MPI_COMM_NULL) {
    for (level = 1; level < 3 && argc > 1 && strcmp(argv[1], kJobs[level]) != 0; ++level) {
    }
    first_count = 2;
  }
  report(kJobs[level]);
  if ((level == 0 || argc > first_count) && level < 3) {
    char* args[4] = {(char*)kJobs[level + 1], NULL, NULL, NULL};
    for (int i = first_count + 1, a = 1; i < argc && a < 3; ++i, ++a) args[a] = argv[i];
    MPI_Comm children;
    MPI_Comm_spawn(argv[0], args, argc > first_count ? atoi(argv[first_count]) : 1, MPI_INFO_NULL,
                   0, MPI_COMM_WORLD, &children, MPI_ERRCODES_IGNORE);
    MPI_Comm_disconnect(&children);
  }
  if (parent != MPI_COMM_NULL) MPI_Comm_disconnect(&parent);
  MPI_Finalize();
  return 0;
}
