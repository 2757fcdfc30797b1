#pragma once
/// [io] libssh is loaded on the first ssh session, not at start-up: a local job never needs it,
/// and mapping libssh with its libcrypto and Kerberos chain cost every launch a few ms of
/// dynamic linking (measured in bench case 1). The launcher defines libssh's functions itself
/// as forwarders to the loaded library (libssh_loader.cpp), so callers include <libssh/...>
/// and call ssh_*() as usual, once load_libssh() has succeeded.

#include "common/result.hpp"

struct ssh_channel_struct;  // libssh's ssh_channel points to one

namespace mpilaunch::launcher {

/// Loads libssh.so.4 (or $MPILAUNCH_LIBSSH) and resolves every function the launcher calls; later
/// calls return the first outcome. Thread-safe. Errors: AgentStartFailed, phase "libssh" (never
/// retried), with the loader's reason.
Status load_libssh();

/// The exit status the server sent for the channel's command, or -1 while none has come.
/// Through ssh_channel_get_exit_state() where the loaded libssh has it (0.11 and later), else
/// ssh_channel_get_exit_status(). After load_libssh().
int channel_exit_status(ssh_channel_struct* channel);

}  // namespace mpilaunch::launcher
