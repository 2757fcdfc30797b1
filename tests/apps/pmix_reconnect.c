/* pmix_reconnect: a rank that connects to its agent's PMIx server, disconnects and connects
 * again, ROUNDS times (argument 1, default 3): PMIx_Init, a PMIx_Get of the job's size,
 * PMIx_Finalize. Open MPI 5 does this in one process (MPI sessions, and the report of a failed
 * MPI_Init); the agent's peer check must admit every round (issue 22, issue 23 item 11). No
 * collective between rounds: libpmix 4.2 completes a fence early when a peer re-initialises
 * in the middle of it. Prints "round R of rank N: size S" per round; exits 1 when a call fails. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  for (int round = 0; round < rounds; ++round) {
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
      printf("round %d: PMIx_Init: %s\n", round, PMIx_Error_string(rc));
      return 1;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t* size = NULL;
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &size);
    if (rc != PMIX_SUCCESS || size == NULL || size->type != PMIX_UINT32) {
      printf("round %d of rank %u: PMIx_Get(PMIX_JOB_SIZE): %s\n", round, me.rank,
             PMIx_Error_string(rc));
      return 1;
    }
    printf("round %d of rank %u: size %u\n", round, me.rank, size->data.uint32);
    fflush(stdout);
    PMIX_VALUE_RELEASE(size);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
      printf("round %d of rank %u: PMIx_Finalize: %s\n", round, me.rank, PMIx_Error_string(rc));
      return 1;
    }
  }
  return 0;
}
