#pragma once
/// [io] The PMIx server's name-service upcalls (PMIx_Publish, PMIx_Lookup, PMIx_Unpublish:
/// MPI_Publish_name, MPI_Lookup_name, MPI_Unpublish_name and Open MPI's accept/connect
/// handshake). Each request becomes a protocol message for the launcher's name service
/// (launcher/job/name_service.hpp), posted to the agent's loop; the answer completes the
/// rank's call. Range, persistence, wait and timeout as docs/dynamic-processes.md says.

#include <pmix_server.h>

#include "agent/pmix_host.hpp"

namespace mpilaunch::agent {

pmix_status_t serve_publish(PmixHost& host, const pmix_proc_t* proc, const pmix_info_t info[],
                            size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t serve_lookup(PmixHost& host, const pmix_proc_t* proc, char** keys,
                           const pmix_info_t info[], size_t ninfo, pmix_lookup_cbfunc_t cbfunc,
                           void* cbdata);
pmix_status_t serve_unpublish(PmixHost& host, const pmix_proc_t* proc, char** keys,
                              const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                              void* cbdata);

}  // namespace mpilaunch::agent
