/* spawntime: how long MPI_Comm_spawn of N children takes to return in the parent (issue 24's
 * target: at most half of mpirun's). Run with one rank; it prints one line "seconds=S" (wall
 * time by MPI_Wtime):
 *   spawntime spawn N        around MPI_Comm_spawn alone
 *   spawntime spawn-merge N  around MPI_Comm_spawn, MPI_Intercomm_merge of parent and children,
 *                            a barrier on the merged communicator (then freed) and
 *                            MPI_Comm_disconnect of the intercommunicator (disconnecting the
 *                            merged communicator hangs in mpirun 4.1.4's PMIx fence)
 * The children are copies of this program: they merge when asked, then disconnect and end. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "spawn";
  const int merge = strcmp(mode, "spawn-merge") == 0;
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    if (merge) {
      MPI_Comm merged;
      MPI_Intercomm_merge(parent, 1, &merged);
      MPI_Barrier(merged);
      MPI_Comm_free(&merged);
    }
    MPI_Comm_disconnect(&parent);
    MPI_Finalize();
    return 0;
  }
  if (!merge && strcmp(mode, "spawn") != 0) {
    fprintf(stderr, "spawntime: unknown mode '%s' (spawn or spawn-merge)\n", mode);
    MPI_Abort(MPI_COMM_WORLD, 64);
  }
  const int children = argc > 2 ? atoi(argv[2]) : 2;
  char* child_argv[] = {(char*)mode, NULL};
  MPI_Comm inter;
  const double start = MPI_Wtime();
  MPI_Comm_spawn(argv[0], child_argv, children, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                 MPI_ERRCODES_IGNORE);
  double seconds = MPI_Wtime() - start;
  if (merge) {
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, 0, &merged);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
  }
  MPI_Comm_disconnect(&inter);
  if (merge) seconds = MPI_Wtime() - start;
  printf("seconds=%.6f\n", seconds);
  MPI_Finalize();
  return 0;
}
