/* pmix_put: a rank whose PMIx data is N bytes. A bare PMIx client: PMIx_Init, Put one string
 * of N bytes (argument 1, default 8192), Commit, Fence with data collection over the job, then
 * prints whether the fence succeeded. The e2e suite uses it to push a rank's data past the
 * shared store's data segment (NS_DATA_SEG_SIZE), where libpmix fails inside the server. The
 * key must not begin with "pmix": those are libpmix's reserved keys, never exchanged. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  pmix_proc_t me;
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "pmix_put: PMIx_Init: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  const size_t bytes = argc > 1 ? strtoul(argv[1], NULL, 10) : 8192;
  char* text = malloc(bytes + 1);
  if (text == NULL) return 2;
  memset(text, 'x', bytes);
  text[bytes] = '\0';
  pmix_value_t value;
  PMIX_VALUE_LOAD(&value, text, PMIX_STRING);
  free(text);
  rc = PMIx_Put(PMIX_GLOBAL, "e2e.bulk", &value);
  PMIX_VALUE_DESTRUCT(&value);
  if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
  if (rc == PMIX_SUCCESS) {
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(&job, 1, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
  }
  printf("pmix_put rank %u: %zu bytes, %s\n", (unsigned)me.rank, bytes, PMIx_Error_string(rc));
  PMIx_Finalize(NULL, 0);
  return rc == PMIX_SUCCESS ? 0 : 3;
}
