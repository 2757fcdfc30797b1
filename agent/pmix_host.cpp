#include "agent/pmix_host.hpp"

#include <hwloc.h>

#include <pmix.h>
#include <pmix_server.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string_view>

#include "common/text_format.hpp"

#include "agent/peer_sockets.hpp"
#include "agent/pmix_names.hpp"
#include "agent/rank_env.hpp"
#include "agent/topology_cache.hpp"

namespace mpilaunch::agent {
namespace {

PmixHost* g_host = nullptr;  // libpmix upcalls carry no host context: one server per process

// Owns a vector of pmix_info_t and destructs them.
class InfoList {
 public:
  InfoList() = default;
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;
  ~InfoList() {
    for (auto& info : items_) {
      // A topology is only ever lent (add_topology): libpmix would destroy and free it.
      if (info.value.type == PMIX_TOPO) info.value.data.topo = nullptr;
      PMIX_INFO_DESTRUCT(&info);
    }
  }
  /// Lends `topology`: it must outlive the call the list is given to.
  void add_topology(const char* key, pmix_topology_t* topology) {
    items_.emplace_back();
    PMIX_INFO_CONSTRUCT(&items_.back());
    PMIX_LOAD_KEY(items_.back().key, key);
    items_.back().value.type = PMIX_TOPO;
    items_.back().value.data.topo = topology;
  }
  template <class T>
  void add(const char* key, const T& value, pmix_data_type_t type) {
    items_.emplace_back();
    PMIX_INFO_CONSTRUCT(&items_.back());
    PMIX_INFO_LOAD(&items_.back(), key, &value, type);
  }
  void add_string(const char* key, const std::string& value) {
    items_.emplace_back();
    PMIX_INFO_CONSTRUCT(&items_.back());
    PMIX_INFO_LOAD(&items_.back(), key, value.c_str(), PMIX_STRING);
  }
  /// A string value without a string (PMIX_STRING holding NULL), as mpirun's orted registers
  /// an unbound rank's PMIX_LOCALITY_STRING.
  void add_null_string(const char* key) {
    items_.emplace_back();
    PMIX_INFO_CONSTRUCT(&items_.back());
    PMIX_LOAD_KEY(items_.back().key, key);
    items_.back().value.type = PMIX_STRING;
    items_.back().value.data.string = nullptr;
  }
  void add_regex(const char* key, const char* regex) {
    items_.emplace_back();
    PMIX_INFO_CONSTRUCT(&items_.back());
    PMIX_INFO_LOAD(&items_.back(), key, regex, PMIX_REGEX);
  }
  void add_array(const char* key, pmix_data_array_t* array) {
    items_.emplace_back();
    PMIX_INFO_CONSTRUCT(&items_.back());
    PMIX_INFO_LOAD(&items_.back(), key, array, PMIX_DATA_ARRAY);
  }
  pmix_info_t* data() { return items_.empty() ? nullptr : items_.data(); }
  std::size_t size() const { return items_.size(); }

 private:
  std::vector<pmix_info_t> items_;
};

Status pmix_failure(const char* call, pmix_status_t rc) {
  return Error{.kind = ErrorKind::PmixError,
               .detail = mpilaunch::format("{} failed: {} ({})", call, PMIx_Error_string(rc), rc)};
}

std::vector<std::byte> copy_bytes(const char* data, std::size_t size) {
  const auto* p = reinterpret_cast<const std::byte*>(data);
  return data == nullptr ? std::vector<std::byte>{} : std::vector<std::byte>(p, p + size);
}

// Hands `data` to libpmix as a malloc'd copy that libpmix releases through `free_buffer`.
void complete_modex(pmix_modex_cbfunc_t cbfunc, void* cbdata, int status,
                    std::span<const std::byte> data) {
  char* copy = nullptr;
  if (!data.empty()) {
    copy = static_cast<char*>(std::malloc(data.size()));
    std::memcpy(copy, data.data(), data.size());
  }
  cbfunc(
      status, copy, data.size(), cbdata, [](void* p) { std::free(p); }, copy);
}

pmix_status_t on_connected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t cbfunc, void*) {
  const std::string nspace = proc->nspace;
  const std::uint32_t rank = proc->rank;
  // On the progress thread, before libpmix serves the client: a connection from a process that
  // is not that rank's (another local user, docs/reliability.md) is closed by libpmix.
  if (RankPeers::enabled() && !g_host->peers().admit(nspace, rank)) {
    std::fprintf(stderr,
                 "mpilaunch-agent: refused a PMIx connection claiming rank %u of %s: no process "
                 "of that rank holds it (set MPILAUNCH_PMIX_PEER_CHECK=off if this is wrong)\n",
                 rank, nspace.c_str());
    return PMIX_ERR_NO_PERMISSIONS;
  }
  asio::post(g_host->io(), [nspace, rank] { g_host->events().on_client_connected(nspace, rank); });
  // libpmix 4.2 passes no cbfunc here; should another version pass one, complete inline.
  return cbfunc == nullptr ? PMIX_SUCCESS : PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t on_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  const std::string nspace = proc->nspace;
  const std::uint32_t rank = proc->rank;
  asio::post(g_host->io(), [nspace, rank, cbfunc, cbdata] {
    g_host->events().on_client_finalized(nspace, rank);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  });
  return PMIX_SUCCESS;
}

pmix_status_t on_abort(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[],
                       size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  const std::string nspace = proc->nspace;
  const std::uint32_t rank = proc->rank;
  const std::string message = msg == nullptr ? "" : msg;
  asio::post(g_host->io(), [=] {
    g_host->events().on_abort(nspace, rank, status, message);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  });
  return PMIX_SUCCESS;
}

pmix_status_t on_fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                       size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                       void* cbdata) {
  if (nprocs == 0) return PMIX_ERR_BAD_PARAM;
  std::string signature;
  for (size_t i = 0; i < nprocs; ++i)
    signature += mpilaunch::format("{}:{};", procs[i].nspace, procs[i].rank);
  bool collect = false;
  int local_status = PMIX_SUCCESS;
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_COLLECT_DATA)) collect = PMIX_INFO_TRUE(&info[i]);
    if (PMIX_CHECK_KEY(&info[i], PMIX_LOCAL_COLLECTIVE_STATUS))
      local_status = info[i].value.data.status;
  }
  const std::string nspace = procs[0].nspace;
  auto blob = copy_bytes(data, ndata);
  asio::post(g_host->io(), [=, blob = std::move(blob)]() mutable {
    g_host->events().on_fence(nspace, signature, collect, local_status, std::move(blob),
                              [cbfunc, cbdata](int status, std::span<const std::byte> bytes) {
                                complete_modex(cbfunc, cbdata, status, bytes);
                              });
  });
  return PMIX_SUCCESS;
}

pmix_status_t on_dmodex(const pmix_proc_t* proc, const pmix_info_t[], size_t,
                        pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  const std::string nspace = proc->nspace;
  const std::uint32_t rank = proc->rank;
  if (rank == PMIX_RANK_WILDCARD) return PMIX_ERR_BAD_PARAM;
  asio::post(g_host->io(), [=] {
    g_host->events().on_dmodex(nspace, rank,
                               [cbfunc, cbdata](int status, std::span<const std::byte> bytes) {
                                 complete_modex(cbfunc, cbdata, status, bytes);
                               });
  });
  return PMIX_SUCCESS;
}

void on_log(const pmix_proc_t* client, const pmix_info_t data[], size_t ndata, const pmix_info_t[],
            size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  std::string text;
  for (size_t i = 0; i < ndata; ++i) {
    const pmix_value_t& v = data[i].value;
    if (v.type == PMIX_STRING && v.data.string != nullptr) {
      text += v.data.string;
    } else if (v.type == PMIX_BYTE_OBJECT && v.data.bo.bytes != nullptr) {
      text += printable_text(std::as_bytes(std::span(v.data.bo.bytes, v.data.bo.size)));
    }
  }
  std::string nspace;
  std::optional<std::uint32_t> rank;
  if (client != nullptr) {
    nspace = client->nspace;
    rank = client->rank;
  }
  // Never complete a log request inside the upcall: libpmix holds a lock that the completion
  // takes again, which deadlocks its progress thread. Complete it from the loop instead.
  asio::post(g_host->io(), [=] {
    if (!text.empty()) g_host->events().on_log(nspace, rank, text);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
  });
}

pmix_status_t on_publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                         pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return serve_publish(*g_host, proc, info, ninfo, cbfunc, cbdata);
}

pmix_status_t on_lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[],
                        size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
  return serve_lookup(*g_host, proc, keys, info, ninfo, cbfunc, cbdata);
}

pmix_status_t on_unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t info[],
                           size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return serve_unpublish(*g_host, proc, keys, info, ninfo, cbfunc, cbdata);
}

// PMIx_Spawn (MPI_Comm_spawn, MPI_Comm_spawn_multiple): the request goes to the launcher,
// which places and starts the new job and answers with its namespace (docs/dynamic-processes.md).
std::string info_string(const pmix_info_t& info) {
  return info.value.type == PMIX_STRING && info.value.data.string != nullptr
             ? std::string(info.value.data.string)
             : std::string();
}

pmix_status_t on_spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo,
                       const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                       void* cbdata) {
  if (proc == nullptr || napps == 0 || cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
  protocol::SpawnRequest request;
  request.nspace = proc->nspace;
  request.rank = proc->rank;
  for (size_t i = 0; i < ninfo; ++i)
    if (PMIX_CHECK_KEY(&job_info[i], PMIX_MAPBY)) request.map_by = info_string(job_info[i]);
  for (size_t a = 0; a < napps; ++a) {
    const pmix_app_t& app = apps[a];
    protocol::SpawnApp out;
    for (char** arg = app.argv; arg != nullptr && *arg != nullptr; ++arg)
      out.argv.emplace_back(*arg);
    if (out.argv.empty() && app.cmd != nullptr) out.argv.emplace_back(app.cmd);
    if (app.cmd != nullptr && !out.argv.empty()) out.argv.front() = app.cmd;
    for (char** e = app.env; e != nullptr && *e != nullptr; ++e) out.env.emplace_back(*e);
    if (app.cwd != nullptr) out.wdir = app.cwd;
    out.maxprocs = app.maxprocs > 0 ? static_cast<std::uint32_t>(app.maxprocs) : 0;
    for (size_t i = 0; i < app.ninfo; ++i) {
      const pmix_info_t& info = app.info[i];
      if (PMIX_CHECK_KEY(&info, PMIX_HOST)) out.host = info_string(info);
      if (PMIX_CHECK_KEY(&info, PMIX_HOSTFILE)) out.hostfile = info_string(info);
      if (PMIX_CHECK_KEY(&info, PMIX_ADD_HOST) && !out.add_host.starts_with("add-hostfile="))
        out.add_host = info_string(info);
      // Refused by the launcher, never ignored: passed where add-host goes (docs/protocol.md).
      if (PMIX_CHECK_KEY(&info, PMIX_ADD_HOSTFILE))
        out.add_host = "add-hostfile=" + info_string(info);
      if (PMIX_CHECK_KEY(&info, PMIX_WDIR)) out.wdir = info_string(info);
    }
    request.apps.push_back(std::move(out));
  }
  asio::post(g_host->io(), [request = std::move(request), cbfunc, cbdata]() mutable {
    g_host->events().on_spawn(std::move(request),
                              [cbfunc, cbdata](int status, const std::string& nspace) {
                                pmix_nspace_t name;
                                PMIX_LOAD_NSPACE(name, nspace.c_str());
                                cbfunc(status, name, cbdata);
                              });
  });
  return PMIX_SUCCESS;
}

// PMIx_Connect and PMIx_Disconnect (MPI_Comm_accept/connect, MPI_Comm_disconnect, the end of
// MPI_Comm_spawn) are collectives over the processes named. libpmix calls the host once every
// local participant has called (a node-local one it completes itself); the agents complete it
// together through the launcher as a fence without data, under a name of its own so that it
// never counts with a fence over the same processes: the proc set sorted (the two sides of an
// accept/connect list the same processes in different orders), and the namespace field
// "#connect" or "#disconnect" (docs/protocol.md).
pmix_status_t collective(const char* kind, const pmix_proc_t procs[], size_t nprocs,
                         pmix_op_cbfunc_t cbfunc, void* cbdata) {
  if (nprocs == 0) return PMIX_ERR_BAD_PARAM;
  std::vector<std::string> items;
  for (size_t i = 0; i < nprocs; ++i)
    items.push_back(mpilaunch::format("{}:{};", procs[i].nspace, procs[i].rank));
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  std::string signature;
  for (const std::string& item : items) signature += item;
  asio::post(g_host->io(), [kind, signature = std::move(signature), cbfunc, cbdata] {
    g_host->events().on_fence(kind, signature, false, PMIX_SUCCESS, {},
                              [cbfunc, cbdata](int status, std::span<const std::byte>) {
                                if (cbfunc != nullptr) cbfunc(status, cbdata);
                              });
  });
  return PMIX_SUCCESS;
}

pmix_status_t on_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                         pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return collective("#connect", procs, nprocs, cbfunc, cbdata);
}

pmix_status_t on_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                            pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return collective("#disconnect", procs, nprocs, cbfunc, cbdata);
}

pmix_server_module_t make_module() {
  pmix_server_module_t m;
  std::memset(&m, 0, sizeof(m));
  m.client_connected = on_connected;
  m.client_finalized = on_finalized;
  m.abort = on_abort;
  m.fence_nb = on_fence;
  m.direct_modex = on_dmodex;
  m.log = on_log;
  m.publish = on_publish;
  m.lookup = on_lookup;
  m.unpublish = on_unpublish;
  m.spawn = on_spawn;
  m.connect = on_connect;
  m.disconnect = on_disconnect;
  return m;
}

pmix_server_module_t g_module = make_module();

}  // namespace

std::string printable_text(std::span<const std::byte> bytes) {
  std::size_t best_start = 0, best_len = 0, start = 0;
  for (std::size_t i = 0; i <= bytes.size(); ++i) {
    const bool printable = i < bytes.size() && [](unsigned char c) {
      return c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f) || c >= 0x80;
    }(std::to_integer<unsigned char>(bytes[i]));
    if (printable) continue;
    if (i - start > best_len) {
      best_start = start;
      best_len = i - start;
    }
    start = i + 1;
  }
  return std::string(reinterpret_cast<const char*>(bytes.data()) + best_start, best_len);
}

std::string pmix_library_version() {
  const char* v = PMIx_Get_version();
  return v == nullptr ? std::string() : std::string(v);
}

namespace {

// The server settings both the real server and --self-check use, so the check starts the
// server exactly as a job does.
void add_server_info(InfoList& info, const std::string& tmpdir) {
  info.add_string(PMIX_SERVER_TMPDIR, tmpdir);
  info.add_string(PMIX_SYSTEM_TMPDIR, tmpdir);
  const bool no = false;
  info.add(PMIX_SERVER_TOOL_SUPPORT, no, PMIX_BOOL);
  info.add(PMIX_SERVER_SYSTEM_SUPPORT, no, PMIX_BOOL);
}

// PMIx_server_init with a lean topology discovery. libpmix discovers this machine's topology
// at init, and I/O device discovery (PCI) is most of its cost (about half of a /bin/true run
// here). The server needs CPUs and caches, not PCI devices, so unless the user chose hwloc
// components, skip them for this call only: the variables are gone again before any rank is
// forked, so ranks see the full topology. The same holds for hwloc's plugins: loading them
// maps libxml2, ICU, X11 and OpenCL into the agent (about 1.5 MiB of its RSS) and the GL one
// probes X displays (a connect per display) for discovery the server does not need.
pmix_status_t lean_server_init(pmix_server_module_t* module, InfoList& info, std::string_view gds,
                               std::size_t job_size = 0, const std::string& topology_xml = {},
                               hwloc_topology** topology = nullptr) {
  const bool own_hwloc_setting = std::getenv("HWLOC_COMPONENTS") == nullptr;
  const bool own_plugin_setting = std::getenv("HWLOC_PLUGINS_BLACKLIST") == nullptr;
  if (own_plugin_setting)
    ::setenv("HWLOC_PLUGINS_BLACKLIST", "hwloc_xml_libxml,hwloc_gl,hwloc_opencl,hwloc_pci", 1);
  hwloc_topology* const cached = topology != nullptr ? load_topology(topology_xml) : nullptr;
  // libpmix copies the fields; the hwloc topology itself must outlive the server.
  pmix_topology_t lent{.source = const_cast<char*>("hwloc:" HWLOC_VERSION), .topology = cached};
  if (cached != nullptr) info.add_topology(PMIX_TOPOLOGY2, &lent);
  if (own_hwloc_setting) ::setenv("HWLOC_COMPONENTS", "-linuxio,-pci", 1);
  // The store is `gds` (default_gds(): hash, or the shared-memory ds21 for big nodes of big
  // jobs); libpmix tells each client its server's choice (PMIX_GDS_MODULE). A user's choice
  // stands, but must keep hash (libpmix's own keys live there; without it the server fails
  // inside and its clients hang in PMIx_Init after connecting, which no wire-up limit can
  // see): fixed with one line.
  // On a libpmix without the shared-memory stores (PMIx 5), ds21/ds12 are left out of a user's
  // choice with one line, instead of libpmix's "component not found" for each.
  const char* user = std::getenv("PMIX_MCA_gds");
  const std::optional<std::string> without_shared =
      user == nullptr || offers_shared_store(pmix_library_version())
          ? std::nullopt
          : gds_without_shared_store(user);
  if (user == nullptr) {
    ::setenv("PMIX_MCA_gds", std::string(gds).c_str(), 1);
  } else if (without_shared) {
    const std::string usable = gds_with_hash(*without_shared).value_or(*without_shared);
    std::fprintf(stderr,
                 "mpilaunch-agent: PMIX_MCA_gds=%s names a shared-memory store (ds21, ds12) that "
                 "this libpmix (%s) does not have; using %s\n",
                 user, pmix_library_version().c_str(), usable.c_str());
    ::setenv("PMIX_MCA_gds", usable.c_str(), 1);
  } else if (const auto fixed = gds_with_hash(user)) {
    std::fprintf(stderr,
                 "mpilaunch-agent: PMIX_MCA_gds=%s leaves out PMIx's hash store, which libpmix "
                 "needs for its own keys (without it ranks hang in PMIx_Init); using %s\n",
                 user, fixed->c_str());
    ::setenv("PMIX_MCA_gds", fixed->c_str(), 1);
  }
  // The shared store's meta segments sized to the job (shared_store_meta_bytes()); kept set,
  // as PMIX_MCA_gds is, so that the ranks forked later read the segments with the same size.
  if (job_size > 0 && std::getenv("NS_META_SEG_SIZE") == nullptr)
    ::setenv("NS_META_SEG_SIZE", std::to_string(shared_store_meta_bytes(job_size)).c_str(), 1);
  const pmix_status_t rc = PMIx_server_init(module, info.data(), info.size());
  if (own_hwloc_setting) ::unsetenv("HWLOC_COMPONENTS");
  if (own_plugin_setting) ::unsetenv("HWLOC_PLUGINS_BLACKLIST");
  if (rc != PMIX_SUCCESS && cached != nullptr) hwloc_topology_destroy(cached);
  if (topology != nullptr) *topology = rc == PMIX_SUCCESS ? cached : nullptr;
  return rc;
}

}  // namespace

Status pmix_self_test(const std::string& tmpdir) {
  if (g_host != nullptr)
    return Error{.kind = ErrorKind::PmixError, .detail = "a PMIx server is already up"};
  InfoList info;
  add_server_info(info, tmpdir);
  pmix_server_module_t module{};
  const pmix_status_t rc = lean_server_init(&module, info, "hash");
  if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_server_init", rc);
  const pmix_status_t fin = PMIx_server_finalize();
  if (fin != PMIX_SUCCESS) return pmix_failure("PMIx_server_finalize", fin);
  return {};
}

PmixHost::PmixHost(asio::io_context& io, PmixEvents& events) : io_(io), events_(events) {
  g_host = this;
}

PmixHost::~PmixHost() {
  finalize();
  g_host = nullptr;
}

Status PmixHost::init(const std::string& hostname, std::uint32_t node_id, const std::string& tmpdir,
                      std::string_view gds, std::size_t job_size, const std::string& topology_xml) {
  InfoList info;
  add_server_info(info, tmpdir);
  info.add_string(PMIX_HOSTNAME, hostname);
  info.add(PMIX_NODEID, node_id, PMIX_UINT32);
  const pmix_status_t rc =
      lean_server_init(&g_module, info, gds, job_size, topology_xml, &topology_);
  if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_server_init", rc);
  initialized_ = true;
  return {};
}

namespace {

// A pmix_data_array_t of `items`, handed to `list` under `key` (libpmix copies it).
void add_info_array(InfoList& list, const char* key, InfoList& items) {
  pmix_data_array_t array{};
  array.type = PMIX_INFO;
  array.array = items.data();
  array.size = items.size();
  list.add_array(key, &array);
  array.array = nullptr;  // still owned by `items`
  array.size = 0;
}

// Where a local rank runs, as mpirun 4.1.4's orted registers it for each rank of its node
// (measured: docs/placement.md): PMIX_CPUSET, the CPUs it was bound to as a list ("0",
// "0-1"), and PMIX_LOCALITY_STRING, libpmix's name of the objects holding them
// ("SK0:L30:L20:L10:CR0:HT0:NM0"); an unbound rank has no PMIX_CPUSET and a locality string
// without a string (which Open MPI's MPI_Init keeps: absent, it would store one of its own,
// computed from its binding). Open MPI 4.1's MPI_Init compares its own locality string
// with each local peer's to learn which of them share its socket, NUMA node, caches or core: its
// MPI_Comm_split_type by OMPI_COMM_TYPE_SOCKET and the like, and its collective and
// shared-memory choices, depend on it. Ranks on other nodes get neither, as under mpirun.
struct RankLocality {
  std::string cpuset;    // empty: unbound
  std::string locality;  // empty: unbound, or libpmix could not name the objects
};

RankLocality rank_locality(const std::string& cpus) {
  RankLocality out;
  if (cpus.empty()) return out;
  hwloc_bitmap_t bitmap = hwloc_bitmap_alloc();
  if (bitmap == nullptr) return out;
  // The list is the launcher's own (common/placement.hpp), in the kernel's form.
  if (hwloc_bitmap_list_sscanf(bitmap, cpus.c_str()) == 0 && !hwloc_bitmap_iszero(bitmap)) {
    char* text = nullptr;
    if (hwloc_bitmap_list_asprintf(&text, bitmap) >= 0 && text != nullptr) out.cpuset = text;
    std::free(text);
    pmix_cpuset_t cpuset;
    PMIX_CPUSET_CONSTRUCT(&cpuset);
    cpuset.source = const_cast<char*>("hwloc");
    cpuset.bitmap = bitmap;
    char* locality = nullptr;
    if (PMIx_server_generate_locality_string(&cpuset, &locality) == PMIX_SUCCESS &&
        locality != nullptr)
      out.locality = locality;
    std::free(locality);
  }
  hwloc_bitmap_free(bitmap);
  return out;
}

void add_locality(InfoList& items, const RankLocality& where) {
  if (!where.cpuset.empty()) items.add_string(PMIX_CPUSET, where.cpuset);
  if (!where.locality.empty())
    items.add_string(PMIX_LOCALITY_STRING, where.locality);
  else
    items.add_null_string(PMIX_LOCALITY_STRING);
}

// The application contexts, as Open MPI's runtime registers them: per context its number,
// size and first rank (PMIX_APP_INFO_ARRAY), and each rank's context and rank within it
// (PMIX_PROC_DATA): Open MPI 4.1 reads MPI_APPNUM as its own PMIX_APPNUM. With it, the rank's
// local and node rank, node id and hostname go along (libpmix derives them from the maps only
// for ranks without such data: "getting local rank failed"), and a local rank's locality.
void add_app_info(InfoList& info, const NamespaceValues& v,
                  const std::map<std::uint32_t, RankLocality>& here) {
  std::uint32_t first = 0;
  for (std::size_t app = 0; app < v.app_sizes.size(); ++app) {
    InfoList items;
    const auto appnum = static_cast<std::uint32_t>(app);
    const pmix_rank_t leader = first;
    items.add(PMIX_APPNUM, appnum, PMIX_UINT32);
    items.add(PMIX_APP_SIZE, v.app_sizes[app], PMIX_UINT32);
    items.add(PMIX_APPLDR, leader, PMIX_PROC_RANK);
    add_info_array(info, PMIX_APP_INFO_ARRAY, items);
    first += v.app_sizes[app];
  }
  if (v.node_of_rank.empty()) return;
  first = 0;
  for (std::size_t app = 0; app < v.app_sizes.size(); ++app) {
    const auto appnum = static_cast<std::uint32_t>(app);
    for (std::uint32_t i = 0; i < v.app_sizes[app]; ++i) {
      InfoList items;
      const pmix_rank_t rank = first + i, app_rank = i;
      items.add(PMIX_RANK, rank, PMIX_PROC_RANK);
      items.add(PMIX_APPNUM, appnum, PMIX_UINT32);
      items.add(PMIX_APP_RANK, app_rank, PMIX_PROC_RANK);
      // Given per-rank data, libpmix no longer derives these from the node and proc maps.
      const std::uint32_t node = v.node_of_rank.at(rank);
      const auto local = static_cast<std::uint16_t>(v.local_rank_of_rank.at(rank));
      items.add(PMIX_LOCAL_RANK, local, PMIX_UINT16);
      items.add(PMIX_NODE_RANK, local, PMIX_UINT16);
      items.add(PMIX_NODEID, node, PMIX_UINT32);
      items.add_string(PMIX_HOSTNAME, v.node_names.at(node));
      if (const auto it = here.find(rank); it != here.end()) add_locality(items, it->second);
      add_info_array(info, PMIX_PROC_DATA, items);
    }
    first += v.app_sizes[app];
  }
}

}  // namespace

Status PmixHost::register_namespace(
    const std::string& nspace, const NamespaceValues& v, const std::string& job_tmpdir,
    const std::string& ns_tmpdir,
    const std::optional<std::pair<std::string, std::uint32_t>>& parent) {
  char* node_regex = nullptr;
  char* proc_regex = nullptr;
  pmix_status_t rc = PMIx_generate_regex(v.node_list.c_str(), &node_regex);
  if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_generate_regex", rc);
  rc = PMIx_generate_ppn(v.proc_list.c_str(), &proc_regex);
  if (rc != PMIX_SUCCESS) {
    std::free(node_regex);
    return pmix_failure("PMIx_generate_ppn", rc);
  }
  InfoList info;
  info.add_string(PMIX_JOBID, v.job_id);
  // MPI_UNIVERSE_SIZE: the slots of every host (mpirun's total_slots_alloc), even when fewer
  // (oversubscribed) or more ranks than that run.
  info.add(PMIX_UNIV_SIZE, v.universe_size, PMIX_UINT32);
  info.add(PMIX_JOB_SIZE, v.job_size, PMIX_UINT32);
  const std::uint32_t max_procs = std::max(v.universe_size, v.job_size);
  info.add(PMIX_MAX_PROCS, max_procs, PMIX_UINT32);
  info.add(PMIX_NUM_NODES, v.num_nodes, PMIX_UINT32);
  const std::uint32_t zero = 0;
  const auto num_apps = static_cast<std::uint32_t>(std::max<std::size_t>(1, v.app_sizes.size()));
  info.add(PMIX_JOB_NUM_APPS, num_apps, PMIX_UINT32);
  info.add(PMIX_APPNUM, zero, PMIX_UINT32);
  std::map<std::uint32_t, RankLocality> local;
  for (std::size_t i = 0; i < v.local_ranks.size(); ++i)
    local[v.local_ranks[i]] = rank_locality(i < v.local_cpus.size() ? v.local_cpus[i] : "");
  add_app_info(info, v, local);
  const bool no = false, yes = true;
  info.add(PMIX_SPAWNED, parent ? yes : no, PMIX_BOOL);
  if (parent) {
    pmix_proc_t parent_id;
    PMIX_PROC_LOAD(&parent_id, parent->first.c_str(), parent->second);
    info.add(PMIX_PARENT_ID, parent_id, PMIX_PROC);
  }
  info.add_regex(PMIX_NODE_MAP, node_regex);
  info.add_regex(PMIX_PROC_MAP, proc_regex);
  std::free(node_regex);
  std::free(proc_regex);
  info.add_string(PMIX_TMPDIR, job_tmpdir);
  info.add_string(PMIX_NSDIR, ns_tmpdir);
  info.add(PMIX_TDIR_RMCLEAN, yes, PMIX_BOOL);
  const auto local_size = static_cast<std::uint32_t>(v.local_ranks.size());
  info.add(PMIX_LOCAL_SIZE, local_size, PMIX_UINT32);
  info.add(PMIX_NODE_SIZE, local_size, PMIX_UINT32);
  if (!v.local_ranks.empty()) {
    info.add_string(PMIX_LOCAL_PEERS, v.local_peers);
    const pmix_rank_t leader = v.local_ranks.front();
    info.add(PMIX_LOCALLDR, leader, PMIX_PROC_RANK);
  }
  // Per-rank PMIX_PROC_DATA for every rank (add_app_info), as mpirun 4.1.4's orted registers
  // it: six more keys per rank of the job for every server and every client of the hash store
  // to store or unpack, the price of each local rank's locality.
  rc = PMIx_server_register_nspace(nspace.c_str(), static_cast<int>(v.local_ranks.size()),
                                   info.data(), info.size(), nullptr, nullptr);
  if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
    return pmix_failure("PMIx_server_register_nspace", rc);
  return {};
}

Result<std::vector<std::string>> PmixHost::register_client(const std::string& nspace,
                                                           std::uint32_t rank, uid_t uid,
                                                           gid_t gid) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace.c_str(), rank);
  pmix_status_t rc = PMIx_server_register_client(&proc, uid, gid, nullptr, nullptr, nullptr);
  if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
    return pmix_failure("PMIx_server_register_client", rc).error();
  char** env = nullptr;
  rc = PMIx_server_setup_fork(&proc, &env);
  if (rc != PMIX_SUCCESS) return pmix_failure("PMIx_server_setup_fork", rc).error();
  std::vector<std::string> out;
  for (char** e = env; e != nullptr && *e != nullptr; ++e) {
    out.emplace_back(*e);
    std::free(*e);
  }
  std::free(env);
  // The port the ranks connect to ("PMIX_SERVER_URI4=pmix-server.PID;tcp4://127.0.0.1:PORT").
  for (const std::string& e : out)
    if (e.starts_with("PMIX_SERVER_URI"))
      if (const auto eq = e.find('='); eq != std::string::npos)
        if (const auto port = server_uri_port(std::string_view(e).substr(eq + 1))) {
          peers_.set_port(*port);
          break;
        }
  return out;
}

void PmixHost::deregister_namespace(const std::string& nspace) {
  if (!initialized_) return;
  PMIx_server_deregister_nspace(nspace.c_str(), nullptr, nullptr);
  peers_.forget(nspace);
}

void PmixHost::request_dmodex(const std::string& nspace, std::uint32_t rank, ModexDone done) {
  pmix_proc_t proc;
  PMIX_LOAD_PROCID(&proc, nspace.c_str(), rank);
  auto* pending = new ModexDone(std::move(done));
  const pmix_status_t rc = PMIx_server_dmodex_request(
      &proc,
      [](pmix_status_t status, char* data, size_t size, void* cbdata) {
        auto* done_ptr = static_cast<ModexDone*>(cbdata);
        auto bytes = copy_bytes(data, size);
        asio::post(g_host->io(), [done_ptr, status, bytes = std::move(bytes)] {
          (*done_ptr)(status, bytes);
          delete done_ptr;
        });
      },
      pending);
  if (rc != PMIX_SUCCESS) {
    (*pending)(rc, {});
    delete pending;
  }
}

void PmixHost::finalize() {
  if (!initialized_) return;
  initialized_ = false;
  PMIx_server_finalize();
  if (topology_ != nullptr) hwloc_topology_destroy(topology_);
  topology_ = nullptr;
}

}  // namespace mpilaunch::agent
