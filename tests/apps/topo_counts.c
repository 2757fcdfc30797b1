/* topo_counts: loads this machine's topology with hwloc three times, keeping no I/O devices,
 * the important ones, and all of them, and prints what each load holds, then where it came
 * from (HWLOC_XMLFILE or "discovered"). No MPI: run directly and under mpilaunch, the lines
 * must match. */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>

static int print_load(const char* name, enum hwloc_type_filter_e io) {
  hwloc_topology_t t;
  if (hwloc_topology_init(&t) != 0) return 1;
  if (hwloc_topology_set_io_types_filter(t, io) != 0 || hwloc_topology_load(t) != 0) {
    hwloc_topology_destroy(t);
    return 1;
  }
  printf(
      "%s: machine %d package %d core %d pu %d numa %d l1 %d l2 %d l3 %d bridge %d pci %d "
      "osdev %d thissystem %d\n",
      name, hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_MACHINE),
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE), hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE),
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU), hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE),
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L1CACHE),
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L2CACHE),
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_L3CACHE), hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_BRIDGE),
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PCI_DEVICE),
      hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_OS_DEVICE), hwloc_topology_is_thissystem(t));
  hwloc_topology_destroy(t);
  return 0;
}

int main(void) {
  if (print_load("none", HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
      print_load("important", HWLOC_TYPE_FILTER_KEEP_IMPORTANT) != 0 ||
      print_load("all", HWLOC_TYPE_FILTER_KEEP_ALL) != 0) {
    fprintf(stderr, "topo_counts: hwloc could not load the topology\n");
    return 1;
  }
  const char* xml = getenv("HWLOC_XMLFILE");
  printf("source %s\n", xml != NULL ? xml : "discovered");
  return 0;
}
