/* flood BYTES: every rank writes exactly BYTES bytes of 100-byte numbered lines to stdout
 * (the last line may be cut short), in 64 KiB write(2) calls, between MPI_Init and MPI_Finalize.
 * Built against Open MPI and MPICH, and with -DFLOOD_PLAIN without MPI at all: the direct-pipe
 * baseline (an Open MPI singleton would add its own daemon's start-up to the baseline). The
 * bench pipes the job's stdout into `wc -c` and checks the total is ranks x BYTES. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef FLOOD_PLAIN
#define MPI_Init(argc, argv) ((void)(argc), (void)(argv))
#define MPI_Comm_rank(comm, rank) ((void)(rank))
#define MPI_Finalize() ((void)0)
#else
#include <mpi.h>
#endif

enum { kLineBytes = 100, kChunkBytes = 64 * 1024 };

/* Writes all of buf, retrying short writes and EINTR. */
static int write_all(const char* buf, size_t n) {
  while (n > 0) {
    const ssize_t done = write(STDOUT_FILENO, buf, n);
    if (done < 0 && errno == EINTR) continue;
    if (done <= 0) return -1;
    buf += done;
    n -= (size_t)done;
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  long long left = argc > 1 ? atoll(argv[1]) : 0;
  static char chunk[kChunkBytes];
  /* One chunk of whole lines, reused: the content does not matter for throughput. */
  const size_t chunk_bytes = kChunkBytes - kChunkBytes % kLineBytes;
  for (size_t at = 0; at < chunk_bytes; at += kLineBytes) {
    const int head = snprintf(chunk + at, kLineBytes, "%d:%08zu:", rank, at / kLineBytes);
    memset(chunk + at + head, 'x', kLineBytes - 1 - (size_t)head);
    chunk[at + kLineBytes - 1] = '\n';
  }
  int failed = 0;
  while (left > 0 && !failed) {
    const size_t n = left < (long long)chunk_bytes ? (size_t)left : chunk_bytes;
    failed = write_all(chunk, n) != 0;
    left -= (long long)n;
  }
  MPI_Finalize();
  return failed ? 1 : 0;
}
