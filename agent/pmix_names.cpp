#include "agent/pmix_names.hpp"

#include <pmix.h>

#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

namespace mpilaunch::agent {
namespace {

using protocol::NameEntry;
using protocol::NameFormat;
using protocol::NamePersistence;
using protocol::NameRange;
using protocol::NameReply;
using protocol::NameStatus;

// An integer directive, whichever integer type the caller loaded it as (Open MPI 4.1 passes
// ranges and timeouts as int, the PMIx standard as pmix_data_range_t and so on).
std::optional<long long> number_of(const pmix_value_t& v) {
  // libpmix's PMIX_VALUE_GET_NUMBER covers the integer and floating types; the enumerations a
  // publish or lookup carries (range, persistence) and Open MPI's boolean PMIX_WAIT it does not.
  switch (v.type) {
    case PMIX_BOOL:
      return v.data.flag ? 1 : 0;
    case PMIX_DATA_RANGE:
      return v.data.range;
    case PMIX_PERSIST:
      return v.data.persist;
    default:
      break;
  }
  pmix_status_t status = PMIX_SUCCESS;
  long long n = 0;
  PMIX_VALUE_GET_NUMBER(status, &v, n, long long);
  if (status != PMIX_SUCCESS) return std::nullopt;
  return n;
}

NameRange range_of(const pmix_value_t& v) {
  switch (number_of(v).value_or(PMIX_RANGE_SESSION)) {
    case PMIX_RANGE_LOCAL:
      return NameRange::Node;
    case PMIX_RANGE_PROC_LOCAL:
      return NameRange::Process;
    case PMIX_RANGE_NAMESPACE:
      return NameRange::Namespace;
    default:  // undef, rm, session, global, custom: the whole job
      return NameRange::Session;
  }
}

NamePersistence persistence_of(const pmix_value_t& v) {
  switch (number_of(v).value_or(PMIX_PERSIST_APP)) {
    case PMIX_PERSIST_FIRST_READ:
      return NamePersistence::FirstRead;
    case PMIX_PERSIST_PROC:
      return NamePersistence::Proc;
    case PMIX_PERSIST_INDEF:
    case PMIX_PERSIST_SESSION:
      return NamePersistence::Session;
    default:
      return NamePersistence::App;
  }
}

pmix_status_t status_of(NameStatus status) {
  switch (status) {
    case NameStatus::Ok:
      return PMIX_SUCCESS;
    case NameStatus::NotFound:
      return PMIX_ERR_NOT_FOUND;
    case NameStatus::TimedOut:
      return PMIX_ERR_TIMEOUT;
    case NameStatus::JobEnded:
      return PMIX_ERR_LOST_CONNECTION;
    case NameStatus::BadRequest:
      return PMIX_ERR_BAD_PARAM;
  }
  return PMIX_ERROR;
}

// A string travels as text; any other value packed by libpmix, as it would cross its own wire.
std::optional<NameEntry> entry_of(const pmix_info_t& info) {
  NameEntry e{.key = info.key};
  if (info.value.type == PMIX_STRING) {
    const char* s = info.value.data.string == nullptr ? "" : info.value.data.string;
    const auto* p = reinterpret_cast<const std::byte*>(s);
    e.value.assign(p, p + std::strlen(s));
    return e;
  }
  pmix_data_buffer_t buffer;
  PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
  const pmix_status_t rc =
      PMIx_Data_pack(nullptr, &buffer, const_cast<pmix_value_t*>(&info.value), 1, PMIX_VALUE);
  if (rc == PMIX_SUCCESS) {
    const auto* p = reinterpret_cast<const std::byte*>(buffer.base_ptr);
    e.format = NameFormat::PmixValue;
    e.value.assign(p, p + buffer.bytes_used);
  }
  PMIX_DATA_BUFFER_DESTRUCT(&buffer);
  if (rc != PMIX_SUCCESS) return std::nullopt;
  return e;
}

// Fills `out` (constructed) with the entry's value; false when it does not unpack.
bool load_value(const NameEntry& e, pmix_value_t& out) {
  if (e.format == NameFormat::Text) {
    const std::string text(reinterpret_cast<const char*>(e.value.data()), e.value.size());
    return PMIx_Value_load(&out, text.c_str(), PMIX_STRING) == PMIX_SUCCESS;
  }
  pmix_data_buffer_t buffer;
  PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
  pmix_byte_object_t bytes{
      .bytes = const_cast<char*>(reinterpret_cast<const char*>(e.value.data())),
      .size = e.value.size()};
  bool ok = PMIx_Data_embed(&buffer, &bytes) == PMIX_SUCCESS;
  pmix_value_t value;
  std::memset(&value, 0, sizeof(value));
  std::int32_t count = 1;
  ok = ok && PMIx_Data_unpack(nullptr, &buffer, &value, &count, PMIX_VALUE) == PMIX_SUCCESS;
  if (ok) {
    ok = PMIx_Value_xfer(&out, &value) == PMIX_SUCCESS;
    PMIx_Value_destruct(&value);
  }
  PMIX_DATA_BUFFER_DESTRUCT(&buffer);
  return ok;
}

// What libpmix and the caller add to a publish besides the names themselves.
bool is_directive(const pmix_info_t& info) {
  return PMIX_CHECK_KEY(&info, PMIX_USERID) || PMIX_CHECK_KEY(&info, PMIX_GRPID) ||
         PMIX_CHECK_KEY(&info, PMIX_TIMEOUT) || PMIX_CHECK_KEY(&info, PMIX_WAIT);
}

std::vector<std::string> keys_of(char** keys) {
  std::vector<std::string> out;
  for (char** k = keys; k != nullptr && *k != nullptr; ++k) out.emplace_back(*k);
  return out;
}

// What a request must name to be forwarded at all: a publish its names, a lookup its keys; an
// unpublish without keys withdraws all the caller's names.
bool names_something(const protocol::NamePublish& r) {
  return !r.entries.empty();
}
bool names_something(const protocol::NameLookup& r) {
  return !r.keys.empty();
}
bool names_something(const protocol::NameUnpublish&) {
  return true;
}

// The shape of the three upcalls: the calling rank's request, its range directive and whatever
// else `read` takes from each info (false refuses the call), forwarded to the agent's loop for
// the launcher's name service; `done` completes the rank's call with the service's reply.
template <typename Request, typename Read>
pmix_status_t forward(PmixHost& host, const pmix_proc_t* proc, Request request,
                      const pmix_info_t info[], size_t ninfo, Read read, NameDone done) {
  if (proc == nullptr) return PMIX_ERR_BAD_PARAM;
  request.nspace = proc->nspace;
  request.rank = proc->rank;
  for (size_t i = 0; i < ninfo; ++i) {
    if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE))
      request.range = range_of(info[i].value);
    else if (!read(request, info[i]))
      return PMIX_ERR_BAD_PARAM;
  }
  if (!names_something(request)) return PMIX_ERR_BAD_PARAM;
  asio::post(host.io(), [&host, request = protocol::Message{std::move(request)},
                         done = std::move(done)]() mutable {
    host.events().on_name_request(std::move(request), std::move(done));
  });
  return PMIX_SUCCESS;
}

// Publish and unpublish answer with a status only.
NameDone answer_status(pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return [cbfunc, cbdata](const NameReply& reply) {
    if (cbfunc != nullptr) cbfunc(status_of(reply.status), cbdata);
  };
}

// A lookup answers with what it found, each value as the publisher's type.
NameDone answer_found(pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
  return [cbfunc, cbdata](const NameReply& reply) {
    if (cbfunc == nullptr) return;
    pmix_status_t status = status_of(reply.status);
    std::vector<pmix_pdata_t> data(reply.found.size());
    std::size_t n = 0;
    for (const protocol::NameFound& f : reply.found) {
      pmix_pdata_t& d = data[n];
      PMIX_PDATA_CONSTRUCT(&d);
      PMIX_LOAD_PROCID(&d.proc, f.nspace.c_str(), f.rank);
      PMIX_LOAD_KEY(d.key, f.entry.key.c_str());
      ++n;
      if (!load_value(f.entry, d.value)) status = PMIX_ERR_UNPACK_FAILURE;
    }
    cbfunc(status, status == PMIX_SUCCESS && n > 0 ? data.data() : nullptr,
           status == PMIX_SUCCESS ? n : 0, cbdata);
    for (std::size_t i = 0; i < n; ++i) PMIX_PDATA_DESTRUCT(&data[i]);
  };
}

}  // namespace

pmix_status_t serve_publish(PmixHost& host, const pmix_proc_t* proc, const pmix_info_t info[],
                            size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return forward(
      host, proc, protocol::NamePublish{}, info, ninfo,
      [](protocol::NamePublish& request, const pmix_info_t& i) {
        if (PMIX_CHECK_KEY(&i, PMIX_PERSISTENCE)) {
          request.persistence = persistence_of(i.value);
        } else if (!is_directive(i)) {
          auto entry = entry_of(i);
          if (!entry) return false;
          request.entries.push_back(std::move(*entry));
        }
        return true;
      },
      answer_status(cbfunc, cbdata));
}

pmix_status_t serve_lookup(PmixHost& host, const pmix_proc_t* proc, char** keys,
                           const pmix_info_t info[], size_t ninfo, pmix_lookup_cbfunc_t cbfunc,
                           void* cbdata) {
  return forward(
      host, proc, protocol::NameLookup{.keys = keys_of(keys)}, info, ninfo,
      [](protocol::NameLookup& request, const pmix_info_t& i) {
        const pmix_value_t& v = i.value;
        if (PMIX_CHECK_KEY(&i, PMIX_WAIT)) {
          // Open MPI passes a bool (mpirun 4.1's server then answers once any key is there);
          // the PMIx standard an int, the number of keys to wait for, 0 meaning all of them.
          const long long n = number_of(v).value_or(0);
          if (v.type == PMIX_BOOL)
            request.wait = n != 0 ? 1 : 0;
          else
            request.wait = n > 0 ? static_cast<std::uint32_t>(n)
                                 : static_cast<std::uint32_t>(request.keys.size());
        } else if (PMIX_CHECK_KEY(&i, PMIX_TIMEOUT)) {
          const long long seconds = number_of(v).value_or(0);
          if (seconds > 0 && seconds < 4'000'000)
            request.timeout_ms = static_cast<std::uint32_t>(seconds * 1000);
        }
        return true;
      },
      answer_found(cbfunc, cbdata));
}

pmix_status_t serve_unpublish(PmixHost& host, const pmix_proc_t* proc, char** keys,
                              const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                              void* cbdata) {
  return forward(
      host, proc, protocol::NameUnpublish{.keys = keys_of(keys)}, info, ninfo,
      [](protocol::NameUnpublish&, const pmix_info_t&) { return true; },
      answer_status(cbfunc, cbdata));
}

}  // namespace mpilaunch::agent
