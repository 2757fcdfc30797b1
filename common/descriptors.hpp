#pragma once
/// [io] Descriptor hygiene for both programs: at start, and for what their children inherit.

namespace mpilaunch {

/// Opens /dev/null on whichever of descriptors 0, 1 and 2 is closed. A program started with
/// one of them closed (`2>&-`, some daemons and CI runners) would otherwise find its first
/// socket, pipe or eventfd there and take it for stdin, stdout or stderr. Call it first in
/// main(), before anything opens a descriptor.
void reserve_standard_descriptors();

/// Marks every descriptor from `first` up close-on-exec, so that none the caller left open
/// (a pipeline's write end, a lock file) reaches the processes this one starts: they would
/// hold it open, and the caller would never see end of file. close_range(2) where the kernel
/// offers CLOSE_RANGE_CLOEXEC (5.11), else one descriptor at a time up to the limit.
void inherit_nothing_from(int first);

}  // namespace mpilaunch
