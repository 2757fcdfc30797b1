/* pmix_start.h: how the suite's and the bench's bare PMIx clients start (tests/apps/peers.c,
 * locality.c, bench/apps/pmix_client.c): PMIx_Init, then the job's size (PMIX_JOB_SIZE of the
 * namespace's wildcard rank). On failure one line on stderr, "PROGRAM: PMIx_Init: TEXT" or
 * "PROGRAM: job size: TEXT" with PMIx's error text, and the status for main to return: 1 when
 * PMIx_Init failed, 2 when the size is missing; 0 once both are known. */
#ifndef MPILAUNCH_TESTS_APPS_PMIX_START_H
#define MPILAUNCH_TESTS_APPS_PMIX_START_H

#include <pmix.h>
#include <stdint.h>
#include <stdio.h>

static inline int pmix_start(const char* program, pmix_proc_t* me, uint32_t* size) {
  pmix_status_t rc = PMIx_Init(me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "%s: PMIx_Init: %s\n", program, PMIx_Error_string(rc));
    return 1;
  }
  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, me->nspace, PMIX_RANK_WILDCARD);
  pmix_value_t* value = NULL;
  rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &value);
  if (rc != PMIX_SUCCESS || value == NULL) {
    fprintf(stderr, "%s: job size: %s\n", program, PMIx_Error_string(rc));
    return 2;
  }
  *size = value->data.uint32;
  PMIX_VALUE_RELEASE(value);
  return 0;
}

/* Prints " LABEL=VALUE" for `proc`'s string KEY as its server holds it (PMIX_OPTIONAL: never a
 * request to another node, as Open MPI reads locality): "-" where the get fails, `null_text`
 * for a string value without a string, "typeN" for a value of another type. */
static inline void print_pmix_string(const pmix_proc_t* proc, const char* label, const char* key,
                                     const char* null_text) {
  pmix_value_t* v = NULL;
  pmix_info_t optional;
  bool yes = true;
  PMIX_INFO_LOAD(&optional, PMIX_OPTIONAL, &yes, PMIX_BOOL);
  const pmix_status_t rc = PMIx_Get(proc, key, &optional, 1, &v);
  PMIX_INFO_DESTRUCT(&optional);
  if (rc != PMIX_SUCCESS || v == NULL)
    printf(" %s=-", label);
  else if (v->type != PMIX_STRING)
    printf(" %s=type%d", label, (int)v->type);
  else
    printf(" %s=%s", label, v->data.string != NULL ? v->data.string : null_text);
  if (v != NULL) PMIX_VALUE_RELEASE(v);
}

#endif
