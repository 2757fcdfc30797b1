/* env_dump VAR...: prints "VAR=value" or "VAR unset" for each name, then "cwd=DIR", between
 * MPI_Init and MPI_Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  for (int i = 1; i < argc; ++i) {
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
