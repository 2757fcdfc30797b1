/* hang: prints "started" and sleeps until killed, without MPI_Init (timeout and teardown tests). */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  printf("started\n");
  fflush(stdout);
  for (;;) pause();
}
