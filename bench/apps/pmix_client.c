/* pmix_client: the PMIx wire-up every MPI job does, without MPI. PMIx_Init; Put a key of our
 * own; Commit; Fence over the whole namespace with data collection; Get the next rank's key and
 * check its value; Finalize. Exits 0 only if the peer's value is right. */
#include <pmix.h>
#include <stdio.h>
#include <string.h>

#include "pmix_start.h" /* tests/apps: the start the suite's PMIx clients share */

int main(void) {
  pmix_proc_t me;
  uint32_t size = 0; /* the job's, to pick a peer */
  const int failed = pmix_start("pmix_client", &me, &size);
  if (failed) return failed;
  pmix_proc_t wildcard;
  PMIX_LOAD_PROCID(&wildcard, me.nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* value = NULL;

  char mine[64];
  snprintf(mine, sizeof mine, "bench-value-of-rank-%u", me.rank);
  pmix_value_t put;
  PMIX_VALUE_LOAD(&put, mine, PMIX_STRING);
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, "bench.key", &put);
  PMIX_VALUE_DESTRUCT(&put);
  if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "pmix_client: put/commit: %s\n", PMIx_Error_string(rc));
    return 3;
  }

  pmix_info_t collect;
  bool yes = true;
  PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  rc = PMIx_Fence(&wildcard, 1, &collect, 1);
  PMIX_INFO_DESTRUCT(&collect);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "pmix_client: fence: %s\n", PMIx_Error_string(rc));
    return 4;
  }

  pmix_proc_t peer;
  PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
  char expected[64];
  snprintf(expected, sizeof expected, "bench-value-of-rank-%u", peer.rank);
  rc = PMIx_Get(&peer, "bench.key", NULL, 0, &value);
  const int ok =
      rc == PMIX_SUCCESS && value->type == PMIX_STRING && strcmp(value->data.string, expected) == 0;
  if (!ok)
    fprintf(stderr, "pmix_client: rank %u: peer %u's key is wrong or missing (%s)\n", me.rank,
            peer.rank, PMIx_Error_string(rc));
  if (rc == PMIX_SUCCESS) PMIX_VALUE_RELEASE(value);
  PMIx_Finalize(NULL, 0);
  return ok ? 0 : 5;
}
