/* nodes: which ranks the MPI library believes share a node. Each rank prints the lowest world
 * rank of its MPI_COMM_TYPE_SHARED communicator and that communicator's size, so a test can
 * check that virtual nodes look like separate nodes to Open MPI and MPICH alike. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, leader = 0, local_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &local_size);
  MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, node);
  printf("nodes rank %d leader %d local %d\n", rank, leader, local_size);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
