/* line_wait FILE: prints one line with C stdio and no fflush ("line RANK tty=T err=E ctty=C":
 * T whether stdout is a terminal, E what stderr is (pipe or other), C whether stdout is the
 * process's controlling terminal), then waits until FILE exists and prints "done RANK".
 * Under a pseudo-terminal stdout, stdio line-buffers and the first line is out before the wait;
 * under a pipe it stays in stdio's buffer until exit, so whoever waits for it to create FILE
 * waits in vain. Not an MPI program. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: line_wait FILE\n");
    return 64;
  }
  const char* env_rank = getenv("OMPI_COMM_WORLD_RANK");
  const int rank = env_rank ? atoi(env_rank) : -1;
  struct stat st;
  const int err_pipe = fstat(2, &st) == 0 && S_ISFIFO(st.st_mode);
  printf("line %d tty=%d err=%s ctty=%s\n", rank, isatty(1), err_pipe ? "pipe" : "other",
         tcgetsid(1) == -1 ? "no" : "yes");
  const struct timespec tick = {0, 5 * 1000 * 1000};
  while (access(argv[1], F_OK) != 0) nanosleep(&tick, NULL);
  printf("done %d\n", rank);
  return 0;
}
