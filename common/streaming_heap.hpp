#pragma once
/// [io] Heap settings for the processes that stream rank output (launcher and agent).

#include <malloc.h>

namespace mpilaunch {

/// Output moves in 256 KiB reads and frames of up to 1 MiB. With glibc's defaults each such
/// buffer is an mmap (or a heap top that free() trims straight back with brk), so every chunk
/// costs fresh zeroed pages: page faults were most of the launcher's time when a rank streamed
/// at full speed. Buffers up to 4 MiB now come from the heap, and up to 4 MiB of free heap top
/// stays mapped for the next chunk.
inline void tune_heap_for_streaming() {
  ::mallopt(M_MMAP_THRESHOLD, 4 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 4 << 20);
}

}  // namespace mpilaunch
