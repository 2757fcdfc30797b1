// Whole command lines from public projects' job scripts, CI set-ups, manifests and docs, run as
// those projects write them with only the program (the probe) and the sizes scaled to this
// machine (2 cores; virtual nodes node1 and node2). `source` names the project and file. First
// what steers mpirun besides its command line: Open MPI's parameter files, its default host
// file, Grid Engine's allocation.

#include "tests/compat/compat.hpp"

namespace mpilaunch::compat {
namespace {

constexpr unsigned kRefusal = ExitNonzero | Framed;

// Grid Engine's variables for a job of parallel environment `pe` (its PE_HOSTFILE is the file
// "pe_hostfile" in the run's working directory, which both launchers read relative to it).
std::vector<std::string> grid_engine(std::vector<std::string> more = {}) {
  std::vector<std::string> env = {"SGE_ROOT=/opt/sge", "ARC=lx-amd64", "JOB_ID=4711",
                                  "PE_HOSTFILE=pe_hostfile", "NSLOTS=3"};
  env.insert(env.end(), more.begin(), more.end());
  return env;
}

// mpi4py's CI (its setup script for Open MPI) writes these into $HOME/.openmpi/mca-params.conf.
constexpr const char* kMpi4pyCiParams =
    "plm_rsh_agent=false\n"
    "btl=tcp,self\n"
    "mpi_yield_when_idle=true\n"
    "rmaps_base_oversubscribe=true\n"
    "btl_base_warn_component_unused=false\n"
    "btl_vader_single_copy_mechanism=none\n";

}  // namespace

std::vector<Case> project_cases() {
  std::vector<Case> t;
  auto add = [&](Case c) { t.push_back(std::move(c)); };
  auto vnode = [&](Case c) {
    c.nodes = Nodes::Virtual;
    t.push_back(std::move(c));
  };

  // ---- Open MPI's parameter files and default host file, Grid Engine ----
  add({.name = "proj-mpi4py-ci-mca-params",
       .args = {"-n", "3", "@probe"},
       .env = {"HOME=@W", "PROBE_ENV=OMPI_MCA_rmaps_base_oversubscribe"},
       .files = {{".openmpi/mca-params.conf", kMpi4pyCiParams}},
       .source = "mpi4py's CI: rmaps_base_oversubscribe=true in $HOME/.openmpi/mca-params.conf, "
                 "then mpiexec -n 3 (more ranks than cores)"});
  add({.name = "proj-mca-params-binding-none",
       .args = {"-n", "2", "@probe"},
       .env = {"HOME=@W"},
       .files = {{".openmpi/mca-params.conf",
                  "# as Open MPI's FAQ suggests for oversubscribed laptops\n"
                  "hwloc_base_binding_policy = none\nrmaps_base_mapping_policy = node\n"}},
       .source = "Open MPI FAQ: MCA parameters in $HOME/.openmpi/mca-params.conf"});
  add({.name = "proj-mca-params-env-wins",
       .args = {"-n", "3", "@probe"},
       .checks = kRefusal,
       .env = {"HOME=@W", "OMPI_MCA_rmaps_base_oversubscribe=0"},
       .files = {{".openmpi/mca-params.conf", kMpi4pyCiParams}},
       .source = "Open MPI FAQ: the environment wins over the parameter files"});
  add({.name = "proj-mca-params-default-hostfile",
       .args = {"@probe"},
       .env = {"HOME=@W"},
       .files = {{".openmpi/mca-params.conf", "orte_default_hostfile = hosts\n"},
                 {"hosts", "localhost slots=3\n"}},
       .source = "Open MPI FAQ: orte_default_hostfile in a parameter file, mpirun ./a.out"});
  add({.name = "proj-oversubscribe-env-enabled",
       .args = {"-n", "3", "@probe"},
       .env = {"OMPI_MCA_rmaps_base_oversubscribe=enabled"},
       .source = "conda-forge/AnacondaRecipes mpi4py recipe: OMPI_MCA_rmaps_base_oversubscribe "
                 "(an Open MPI boolean word)"});
  // mpirun 4.1.4 prints a block for the word and takes it as false; mpilaunch says it in one
  // line (and the ranks' Open MPI prints its block under both).
  add({.name = "proj-oversubscribe-env-on",
       .args = {"-n", "3", "@probe"},
       .checks = kRefusal,
       .env = {"OMPI_MCA_rmaps_base_oversubscribe=on"},
       .source = "OMPI_MCA_rmaps_base_oversubscribe=on: not an Open MPI boolean, so false"});
  add({.name = "proj-oversubscribe-env-on-fits",
       .args = {"-n", "2", "@probe"},
       .checks = Report | Stdout,
       .env = {"OMPI_MCA_rmaps_base_oversubscribe=on"},
       .source = "OMPI_MCA_rmaps_base_oversubscribe=on with as many ranks as cores"});
  add({.name = "proj-mca-twice",
       .args = {"--mca", "btl", "self,vader", "-mca", "btl", "tcp,self", "-n", "1", "@probe"},
       .checks = kRefusal,
       .source = "mpirun 4.1.4: an MCA parameter listed twice on the command line is refused"});
  add({.name = "proj-mca-and-gmca",
       .args = {"--mca", "btl", "self,vader", "--gmca", "btl", "self,vader", "-n", "1", "@probe"},
       .source = "mpirun 4.1.4: --mca and --gmca of one parameter run"});
  add({.name = "proj-sge-no-np",
       .args = {"@probe"},
       .env = grid_engine(),
       .files = {{"pe_hostfile", "localhost 3 all.q@localhost UNDEFINED\n"}},
       .source = "Grid Engine job scripts (#$ -pe openmpi 3): mpirun ./a.out, slots from "
                 "PE_HOSTFILE"});
  add({.name = "proj-sge-nslots",
       .args = {"-np", "3", "@probe"},
       .env = grid_engine(),
       .files = {{"pe_hostfile",
                  "localhost 2 all.q@localhost UNDEFINED\n"
                  "localhost 1 b.q@localhost UNDEFINED\n"}},
       .source = "NakamuraTakashi/SEIB-DGVM code/mpi/go.bat: mpirun -np $NSLOTS ./go.out"});
  add({.name = "proj-sge-worker-script",
       .args = {"-np", "2", "sh", "./worker_script.sh"},
       .env = grid_engine(),
       .files = {{"pe_hostfile", "localhost 4 all.q@localhost UNDEFINED\n"},
                 {"worker_script.sh", "exec @probe \"$@\"\n"}},
       .source =
           "tin6150/inet-dev-class mpi/run_mpi_in_hpc.sh: mpirun -np 4 sh ./worker_script.sh"});
  add({.name = "proj-pe-hostfile-without-sge",
       .args = {"@probe"},
       .env = {"PE_HOSTFILE=pe_hostfile", "JOB_ID=4711"},
       .files = {{"pe_hostfile", "localhost 3 all.q@localhost UNDEFINED\n"}},
       .source = "Grid Engine: PE_HOSTFILE without SGE_ROOT and ARC is not read by mpirun"});

  vnode({.name = "vn-proj-sge",
         .args = {"--mca", "plm_rsh_disable_qrsh", "1", "@probe"},
         .env = grid_engine(),
         .files = {{"pe_hostfile",
                    "node1 2 all.q@node1 UNDEFINED\nnode2 1 all.q@node2 "
                    "UNDEFINED\n"}},
         .source = "boywert/SussexBigRun2013 SimpleTree/parallel.q (#$ -pe openmpi N): mpirun "
                   "-np $NSLOTS $1, here without -np"});

  return t;
}

}  // namespace mpilaunch::compat
