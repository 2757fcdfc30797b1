/* pmix_intruder: a local process that is no rank of the job connects to an agent's PMIx server
 * as one (the test gives it a rank's PMIX_* environment) and, if let in, calls PMIx_Abort(42):
 * what another local user could do to a job (issue 23 item 11). Prints "refused" and exits 0
 * when PMIx_Init fails; prints "admitted" and exits 3 after the abort otherwise. */
#include <pmix.h>
#include <stdio.h>

int main(void) {
  pmix_proc_t me;
  const pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    printf("refused: %s\n", PMIx_Error_string(rc));
    return 0;
  }
  printf("admitted as rank %u of %s\n", me.rank, me.nspace);
  fflush(stdout);
  PMIx_Abort(42, "intruder", NULL, 0);
  PMIx_Finalize(NULL, 0);
  return 3;
}
