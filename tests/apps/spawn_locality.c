/* spawn_locality: where PMIx says processes started by MPI_Comm_spawn run, as Open MPI's
 * MPI_Init in the child asks it. Run as "spawn_locality N": the job's ranks spawn N copies of
 * the program; every process, parent or child, prints one line
 *   rank=R job=parent|child cpuset=LIST locality=STRING cpus=LIST
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
  MPI_Init(&argc, &argv);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent == MPI_COMM_NULL) {
    report("parent");
    char* args[] = {"child", NULL};
    MPI_Comm children;
    MPI_Comm_spawn(argv[0], args, argc > 1 ? atoi(argv[1]) : 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                   &children, MPI_ERRCODES_IGNORE);
    MPI_Comm_disconnect(&children);
  } else {
    report("child");
    MPI_Comm_disconnect(&parent);
  }
  MPI_Finalize();
  return 0;
}
