/* locality: where PMIx says each rank of the job runs, as Open MPI's MPI_Init asks it. A bare
 * PMIx client: after PMIx_Init, one line per rank of the job,
 *   rank=R peer=P cpuset=LIST locality=STRING
 * with the PMIX_CPUSET and PMIX_LOCALITY_STRING that PMIx_Get returns for rank P ("-" where the
 * get fails, "null" for a string value without a string, as mpirun's orted registers an
 * unbound rank's locality). Open MPI 4.1 compares its own locality string with each local
 * peer's to learn which peers share its socket, NUMA node, caches and core. The e2e suite
 * compares these lines under mpilaunch and under mpirun 4.1.4. */
#include <pmix.h>
#include <stdio.h>

#include "pmix_start.h"

int main(void) {
  pmix_proc_t me;
  uint32_t size = 0;
  const int failed = pmix_start("locality", &me, &size);
  if (failed) return failed;
  for (uint32_t r = 0; r < size; ++r) {
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, r);
    printf("rank=%u peer=%u", (unsigned)me.rank, (unsigned)r);
    print_pmix_string(&peer, "cpuset", PMIX_CPUSET, "null");
    print_pmix_string(&peer, "locality", PMIX_LOCALITY_STRING, "null");
    printf("\n");
  }
  fflush(stdout);
  PMIx_Finalize(NULL, 0);
  return 0;
}
