/* flood BYTES [stdout|stderr|both]: every rank writes BYTES bytes (rounded up to whole lines) of
 * fixed-length numbered lines "R:NNNNNNNN:xxx...x\n" (kLineBytes each, NNNNNNNN counting from 0)
 * to the chosen stream(s), then finalizes. Tests check per-rank order and that nothing is lost. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kLineBytes = 100 };

static int write_all(FILE* stream, const char* line) {
  return fwrite(line, 1, kLineBytes, stream) == kLineBytes ? 0 : -1;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long long bytes = argc > 1 ? atoll(argv[1]) : 0;
  const char* stream = argc > 2 ? argv[2] : "stdout";
  const int to_out = !strcmp(stream, "stdout") || !strcmp(stream, "both");
  const int to_err = !strcmp(stream, "stderr") || !strcmp(stream, "both");
  if (bytes < 0 || (!to_out && !to_err)) {
    fprintf(stderr, "usage: flood BYTES [stdout|stderr|both]\n");
    MPI_Abort(MPI_COMM_WORLD, 64);
  }
  static char out_buffer[1 << 16], err_buffer[1 << 16];
  setvbuf(stdout, out_buffer, _IOFBF, sizeof out_buffer);
  setvbuf(stderr, err_buffer, _IOFBF, sizeof err_buffer);

  const long long lines = (bytes + kLineBytes - 1) / kLineBytes;
  char line[kLineBytes + 1];
  int failed = 0;
  for (long long i = 0; i < lines && !failed; ++i) {
    const int head = snprintf(line, sizeof line, "%d:%08lld:", rank, i);
    memset(line + head, 'x', kLineBytes - 1 - head);
    line[kLineBytes - 1] = '\n';
    if (to_out && write_all(stdout, line) != 0) failed = 1;
    if (to_err && write_all(stderr, line) != 0) failed = 1;
  }
  if (fflush(stdout) != 0 || fflush(stderr) != 0) failed = 1;
  MPI_Finalize();
  return failed ? 1 : 0;
}
