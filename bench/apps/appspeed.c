/* appspeed: what an application's own loop takes under a launcher (issue 21: applications run at
 * least as fast as under mpirun). Rank 0 prints one line "seconds=S" with the loop's wall time
 * (MPI_Wtime, after a barrier; the launch is not counted), and for pingpong also the one-way
 * latency or bandwidth.
 *   appspeed allreduce ITERATIONS        an 8-byte MPI_Allreduce (sum) loop, every rank
 *   appspeed pingpong ITERATIONS BYTES   ranks 0 and 1 send BYTES back and forth
 *   appspeed ring ITERATIONS             a 4-byte token passed around every rank */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "allreduce";
  const long iterations = argc > 2 ? atol(argv[2]) : 10000;
  const long bytes = argc > 3 ? atol(argv[3]) : 8;
  char* buffer = calloc((size_t)(bytes > 8 ? bytes : 8), 1);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  if (strcmp(mode, "allreduce") == 0) {
    double in = rank, out = 0;
    for (long i = 0; i < iterations; ++i)
      MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(mode, "pingpong") == 0) {
    for (long i = 0; i < iterations && rank < 2; ++i)
      if (rank == 0) {
        MPI_Send(buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
  } else if (strcmp(mode, "ring") == 0) {
    int token = 0;
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (long i = 0; i < iterations; ++i)
      if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(&token, 1, MPI_INT, prev, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ++token;
        MPI_Send(&token, 1, MPI_INT, next, 0, MPI_COMM_WORLD);
      }
  } else {
    if (rank == 0) fprintf(stderr, "appspeed: unknown mode '%s'\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 64);
  }
  const double seconds = MPI_Wtime() - start;
  if (rank == 0) {
    printf("seconds=%.6f", seconds);
    if (strcmp(mode, "pingpong") == 0 && iterations > 0)
      printf(" one_way_us=%.3f mib_per_s=%.1f", seconds / (2.0 * iterations) * 1e6,
             2.0 * iterations * bytes / seconds / (1 << 20));
    printf("\n");
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
