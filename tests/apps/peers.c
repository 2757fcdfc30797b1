/* peers: what PMIx tells a rank about every rank of its job. A bare PMIx client: after
 * PMIx_Init, one line per rank of the job with the hostname, local rank and node rank that
 * PMIx_Get returns for it ("-" where the get fails), then the node-level keys of its own node.
 * Open MPI's MPI_Init reads the same keys; the e2e suite compares them with the placement. */
#include <pmix.h>
#include <stdio.h>

#include "pmix_start.h"

static void print_key(const pmix_proc_t* proc, const char* key) {
  pmix_value_t* v = NULL;
  if (PMIx_Get(proc, key, NULL, 0, &v) != PMIX_SUCCESS || v == NULL) {
    printf(" -");
    return;
  }
  if (v->type == PMIX_STRING)
    printf(" %s", v->data.string);
  else if (v->type == PMIX_UINT16)
    printf(" %u", (unsigned)v->data.uint16);
  else if (v->type == PMIX_UINT32)
    printf(" %u", (unsigned)v->data.uint32);
  else if (v->type == PMIX_PROC_RANK)
    printf(" %u", (unsigned)v->data.rank);
  else
    printf(" type%d", (int)v->type);
  PMIX_VALUE_RELEASE(v);
}

int main(void) {
  pmix_proc_t me;
  uint32_t size = 0;
  const int failed = pmix_start("peers", &me, &size);
  if (failed) return failed;
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
  for (uint32_t r = 0; r < size; ++r) {
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, r);
    printf("peers %u sees %u:", (unsigned)me.rank, (unsigned)r);
    print_key(&peer, PMIX_HOSTNAME);
    print_key(&peer, PMIX_LOCAL_RANK);
    print_key(&peer, PMIX_NODE_RANK);
    printf("\n");
  }
  printf("peers %u node:", (unsigned)me.rank);
  print_key(&job, PMIX_LOCAL_SIZE);
  print_key(&job, PMIX_LOCAL_PEERS);
  print_key(&job, PMIX_LOCALLDR);
  print_key(&job, PMIX_NUM_NODES);
  printf("\n");
  PMIx_Finalize(NULL, 0);
  return 0;
}
