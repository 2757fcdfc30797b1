#include "launcher/start/libssh_loader.hpp"

#include <dlfcn.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "launcher/start/lazy_library.hpp"

// Every libssh function the launcher calls: return type, name, parameters, arguments. A call
// to one not listed here fails to link, since the launcher does not link libssh.
#define MPILAUNCH_LIBSSH_FUNCTIONS(X)                                                              \
  X(ssh_session, ssh_new, (void), ())                                                              \
  X(void, ssh_free, (ssh_session s), (s))                                                          \
  X(const char*, ssh_get_error, (void* error), (error))                                            \
  X(int, ssh_options_set, (ssh_session s, enum ssh_options_e type, const void* value),             \
    (s, type, value))                                                                              \
  X(int, ssh_options_get, (ssh_session s, enum ssh_options_e type, char** value),                  \
    (s, type, value))                                                                              \
  X(int, ssh_options_get_port, (ssh_session s, unsigned int* port), (s, port))                     \
  X(int, ssh_options_parse_config, (ssh_session s, const char* file), (s, file))                   \
  X(void, ssh_set_blocking, (ssh_session s, int blocking), (s, blocking))                          \
  X(int, ssh_connect, (ssh_session s), (s))                                                        \
  X(void, ssh_disconnect, (ssh_session s), (s))                                                    \
  X(socket_t, ssh_get_fd, (ssh_session s), (s))                                                    \
  X(int, ssh_get_poll_flags, (ssh_session s), (s))                                                 \
  X(void, ssh_string_free_char, (char* text), (text))                                              \
  X(enum ssh_known_hosts_e, ssh_session_is_known_server, (ssh_session s), (s))                     \
  X(int, ssh_get_server_publickey, (ssh_session s, ssh_key * key), (s, key))                       \
  X(enum ssh_keytypes_e, ssh_key_type, (const ssh_key key), (key))                                 \
  X(const char*, ssh_key_type_to_char, (enum ssh_keytypes_e type), (type))                         \
  X(void, ssh_key_free, (ssh_key key), (key))                                                      \
  X(int, ssh_pki_export_pubkey_base64, (const ssh_key key, char** b64), (key, b64))                \
  X(int, ssh_get_publickey_hash,                                                                   \
    (const ssh_key key, enum ssh_publickey_hash_type type, unsigned char** hash, size_t* len),     \
    (key, type, hash, len))                                                                        \
  X(char*, ssh_get_fingerprint_hash,                                                               \
    (enum ssh_publickey_hash_type type, unsigned char* hash, size_t len), (type, hash, len))       \
  X(void, ssh_clean_pubkey_hash, (unsigned char** hash), (hash))                                   \
  X(int, ssh_userauth_publickey_auto, (ssh_session s, const char* user, const char* passphrase),   \
    (s, user, passphrase))                                                                         \
  X(ssh_channel, ssh_channel_new, (ssh_session s), (s))                                            \
  X(void, ssh_channel_free, (ssh_channel c), (c))                                                  \
  X(int, ssh_channel_open_session, (ssh_channel c), (c))                                           \
  X(int, ssh_channel_request_exec, (ssh_channel c, const char* command), (c, command))             \
  X(int, ssh_channel_read_nonblocking, (ssh_channel c, void* dest, uint32_t count, int is_stderr), \
    (c, dest, count, is_stderr))                                                                   \
  X(int, ssh_channel_write, (ssh_channel c, const void* data, uint32_t len), (c, data, len))       \
  X(uint32_t, ssh_channel_window_size, (ssh_channel c), (c))                                       \
  X(int, ssh_channel_send_eof, (ssh_channel c), (c))                                               \
  X(int, ssh_channel_is_eof, (ssh_channel c), (c))                                                 \
  X(int, ssh_channel_is_closed, (ssh_channel c), (c))                                              \
  X(int, ssh_channel_close, (ssh_channel c), (c))                                                  \
  X(sftp_session, sftp_new, (ssh_session s), (s))                                                  \
  X(int, sftp_init, (sftp_session sftp), (sftp))                                                   \
  X(void, sftp_free, (sftp_session sftp), (sftp))                                                  \
  X(int, sftp_get_error, (sftp_session sftp), (sftp))                                              \
  X(sftp_file, sftp_open, (sftp_session sftp, const char* file, int access, mode_t mode),          \
    (sftp, file, access, mode))                                                                    \
  X(ssize_t, sftp_write, (sftp_file file, const void* data, size_t count), (file, data, count))    \
  X(int, sftp_close, (sftp_file file), (file))

namespace mpilaunch::launcher {
namespace {

// MPILAUNCH_LIBSSH names another build of libssh (a path, or a soname the loader finds).
std::string library_name() {
  const char* env = std::getenv("MPILAUNCH_LIBSSH");
  return env != nullptr && *env != '\0' ? env : "libssh.so.4";
}

MPILAUNCH_LAZY_TABLE(MPILAUNCH_LIBSSH_FUNCTIONS, libssh)

LazyLibrary& libssh() {
  static LazyLibrary library("libssh", "libssh", library_name, kNames,
                             "libssh 0.9 or later is needed");
  return library;
}

}  // namespace

Status load_libssh() {
  return libssh().load();
}

namespace {

// The remote command's exit status: libssh 0.11 has ssh_channel_get_exit_state() and deprecates
// ssh_channel_get_exit_status(), the only one of the two before 0.11. Both are looked up in the
// loaded library (found again by one of its functions' addresses), with their types written
// here, so that neither version's header is needed (nor its deprecation).
struct ExitCalls {
  using State = int(ssh_channel, std::uint32_t*, char**, int*);
  using Status = int(ssh_channel);
  State* state = nullptr;
  Status* status = nullptr;
};

const ExitCalls& exit_calls() {
  static const ExitCalls calls = [] {
    ExitCalls c;
    Dl_info info{};
    if (::dladdr(libssh().function(k_ssh_new), &info) == 0 || info.dli_fname == nullptr) return c;
    void* handle = ::dlopen(info.dli_fname, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (handle == nullptr) return c;
    c.state = reinterpret_cast<ExitCalls::State*>(::dlsym(handle, "ssh_channel_get_exit_state"));
    c.status = reinterpret_cast<ExitCalls::Status*>(::dlsym(handle, "ssh_channel_get_exit_status"));
    return c;
  }();
  return calls;
}

}  // namespace

int channel_exit_status(ssh_channel channel) {
  const ExitCalls& calls = exit_calls();
  if (calls.state != nullptr) {
    std::uint32_t code = 0;
    return calls.state(channel, &code, nullptr, nullptr) == SSH_OK ? static_cast<int>(code) : -1;
  }
  return calls.status != nullptr ? calls.status(channel) : -1;
}

}  // namespace mpilaunch::launcher

// The forwarders, with libssh's own names and types (checked against its headers).
MPILAUNCH_LAZY_FORWARDERS(MPILAUNCH_LIBSSH_FUNCTIONS)
