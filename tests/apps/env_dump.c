/* env_dump VAR...: prints "VAR=value" or "VAR unset" for each name, then "cwd=DIR", between
 * MPI_Init and MPI_Finalize. The name @universe prints the MPI_UNIVERSE_SIZE attribute. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "@universe") == 0) {
      int* size = NULL;
      int found = 0;
      MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &size, &found);
      if (found)
        printf("@universe=%d\n", *size);
      else
        printf("@universe unset\n");
      continue;
    }
    const char* value = getenv(argv[i]);
    if (value != NULL)
      printf("%s=%s\n", argv[i], value);
    else
      printf("%s unset\n", argv[i]);
  }
  char cwd[4096];
  printf("cwd=%s\n", getcwd(cwd, sizeof cwd) != NULL ? cwd : "(unknown)");
  fflush(stdout);
  MPI_Finalize();
  return 0;
}
