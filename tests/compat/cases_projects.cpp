// Whole command lines from public projects' job scripts, CI set-ups, manifests and docs, run as
// those projects write them with only the program (the probe) and the sizes scaled to this
// machine (2 cores; virtual nodes node1 and node2). `source` names the project and file. First
// what steers mpirun besides its command line: Open MPI's parameter files, its default host
// file, Grid Engine's allocation.

#include "tests/compat/compat.hpp"

namespace mpilaunch::compat {
namespace {

constexpr unsigned kAll = Report | Stdout | Stderr;
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
  // A value is the rest of its line to Open MPI 4.1.4's parser: the comment after it too, so
  // the boolean is refused (a block, then false); a --tune file's -mca line is read there too.
  add({.name = "proj-mca-params-comment-after-value",
       .args = {"-n", "3", "@probe"},
       .checks = kRefusal,
       .env = {"HOME=@W"},
       .files = {{".openmpi/mca-params.conf", "rmaps_base_oversubscribe = 1 # for CI\n"}},
       .source = "a comment after a value in $HOME/.openmpi/mca-params.conf"});
  add({.name = "proj-mca-params-quoted-value",
       .args = {"-n", "2", "@probe"},
       .checks = kRefusal,
       .env = {"HOME=@W"},
       .files = {{".openmpi/mca-params.conf", "hwloc_base_binding_policy = \"none\"\n"}},
       .source = "a quoted value in $HOME/.openmpi/mca-params.conf: the quotes are the value's"});
  add({.name = "proj-mca-params-mca-line",
       .args = {"-n", "3", "@probe"},
       .env = {"HOME=@W"},
       .files = {{".openmpi/mca-params.conf", "-mca rmaps_base_oversubscribe 1\n"}},
       .source = "a --tune file's -mca line in $HOME/.openmpi/mca-params.conf"});
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

  // Inside an allocation mpirun's -H and host files only pick among the allocation's hosts
  // (measured): a file's slots= count for nothing, -H's cap the allocation's, a host outside it
  // is left out, --default-hostfile is ignored; MPI_UNIVERSE_SIZE stays the allocation's.
  const std::vector<std::string> sge3 = {"pe_hostfile", "localhost 3 all.q@localhost UNDEFINED\n"};
  add({.name = "proj-sge-host-caps-slots",
       .args = {"-H", "localhost:2", "@probe"},
       .env = grid_engine(),
       .files = {{sge3[0], sge3[1]}},
       .source =
           "a Grid Engine job script with mpirun -H localhost:2 ./a.out (3 slots allocated)"});
  add({.name = "proj-sge-host-beyond-allocation",
       .args = {"-H", "localhost:5", "-n", "4", "@probe"},
       .checks = kRefusal,
       .env = grid_engine(),
       .files = {{sge3[0], sge3[1]}},
       .source = "mpirun -H localhost:5 -n 4 in a 3-slot Grid Engine job: the allocation caps"});
  add({.name = "proj-sge-hostfile-slots-ignored",
       .args = {"--hostfile", "hosts", "@probe"},
       .env = grid_engine(),
       .files = {{sge3[0], sge3[1]}, {"hosts", "localhost slots=1\n"}},
       .source = "a Grid Engine job script with mpirun --hostfile hosts ./a.out"});
  add({.name = "proj-sge-default-hostfile-ignored",
       .args = {"--default-hostfile", "hosts", "@probe"},
       .env = grid_engine(),
       .files = {{sge3[0], sge3[1]}, {"hosts", "localhost slots=1\n"}},
       .source = "mpirun --default-hostfile hosts ./a.out in a Grid Engine job"});
  add({.name = "proj-sge-host-outside-left-out",
       .args = {"-H", "localhost,elsewhere", "@probe"},
       .checks = Report | Stdout,
       .env = grid_engine(),
       .files = {{sge3[0], sge3[1]}},
       .source = "mpirun -H localhost,elsewhere in a Grid Engine job of localhost only"});
  add({.name = "proj-sge-host-none-inside",
       .args = {"-H", "elsewhere", "-n", "1", "@probe"},
       .checks = kRefusal,
       .env = grid_engine(),
       .files = {{sge3[0], sge3[1]}},
       .source = "mpirun -H elsewhere in a Grid Engine job of localhost only"});
  const std::vector<std::string> sge22 = {
      "pe_hostfile", "node1 2 all.q@node1 UNDEFINED\nnode2 2 all.q@node2 UNDEFINED\n"};
  vnode({.name = "vn-proj-sge-hostfile-narrows",
         .args = {"--mca", "plm_rsh_disable_qrsh", "1", "--hostfile", "hosts", "-n", "3", "@probe"},
         .env = grid_engine(),
         .files = {{sge22[0], sge22[1]}, {"hosts", "node2 slots=4\nnode1 slots=4\n"}},
         .source = "a Grid Engine job script with mpirun --hostfile hosts -n 3 (the allocation's "
                   "order and slots)"});
  vnode({.name = "vn-proj-sge-host-caps",
         .args = {"--mca", "plm_rsh_disable_qrsh", "1", "-H", "node2:1,node1:4", "@probe"},
         .env = grid_engine(),
         .files = {{sge22[0], sge22[1]}},
         .source = "mpirun -H node2:1,node1:4 in a Grid Engine job of node1 and node2"});

  vnode({.name = "vn-proj-sge",
         .args = {"--mca", "plm_rsh_disable_qrsh", "1", "@probe"},
         .env = grid_engine(),
         .files = {{"pe_hostfile",
                    "node1 2 all.q@node1 UNDEFINED\nnode2 1 all.q@node2 "
                    "UNDEFINED\n"}},
         .source = "boywert/SussexBigRun2013 SimpleTree/parallel.q (#$ -pe openmpi N): mpirun "
                   "-np $NSLOTS $1, here without -np"});

  // ---- one node ----
  add({.name = "proj-texar-bert-single",
       .args = {"-np",       "1",
                "-H",        "localhost:1",
                "-bind-to",  "none",
                "-map-by",   "slot",
                "-x",        "NCCL_DEBUG=INFO",
                "-x",        "LD_LIBRARY_PATH",
                "-x",        "PATH",
                "-mca",      "pml",
                "ob1",       "-mca",
                "btl",       "^openib",
                "@probe",    "--do_train",
                "--do_eval", "--do_test"},
       .env = {"LD_LIBRARY_PATH=/opt/cuda/lib64", "PROBE_ENV=NCCL_DEBUG,LD_LIBRARY_PATH"},
       .source = "asyml/texar examples/bert/run_single.sh"});
  add({.name = "proj-tpu-mnasnet-horovod",
       .args = {"-np",
                "2",
                "-hostfile",
                "hosts.txt",
                "-mca",
                "plm_rsh_no_tree_spawn",
                "1",
                "-bind-to",
                "socket",
                "-map-by",
                "slot",
                "-x",
                "HOROVOD_HIERARCHICAL_ALLREDUCE=1",
                "-x",
                "HOROVOD_FUSION_THRESHOLD=16777216",
                "-x",
                "NCCL_MIN_NRINGS=4",
                "-x",
                "LD_LIBRARY_PATH",
                "-x",
                "PATH",
                "-mca",
                "pml",
                "ob1",
                "-mca",
                "btl",
                "^openib",
                "-x",
                "NCCL_SOCKET_IFNAME=ens5",
                "-mca",
                "btl_tcp_if_exclude",
                "lo,docker0",
                "-x",
                "TF_CPP_MIN_LOG_LEVEL=0",
                "@probe",
                "--use_tpu=False",
                "--train_batch_size=256"},
       .env = {"LD_LIBRARY_PATH=/opt/lib",
               "PROBE_ENV=HOROVOD_FUSION_THRESHOLD,NCCL_SOCKET_IFNAME,OMPI_MCA_btl_tcp_if_exclude,"
               "OMPI_MCA_btl_tcp_if_include,OMPI_MCA_plm_rsh_no_tree_spawn"},
       .files = {{"hosts.txt", "localhost slots=2\n"}},
       .source = "pidajay/tpu models/official/mnasnet/train.sh"});
  add({.name = "proj-rocm-moe-npernode-numa",
       .args = {"--allow-run-as-root",
                "-mca",
                "btl_openib_warn_no_device_params_found",
                "0",
                "-mca",
                "pml",
                "ob1",
                "-mca",
                "btl",
                "^openib",
                "-mca",
                "btl_tcp_if_include",
                "lo",
                "--tag-output",
                "--npernode",
                "2",
                "--bind-to",
                "numa",
                "-x",
                "MIOPEN_FIND_MODE=1",
                "@probe",
                "mixtral_parity.py"},
       .env = {"PROBE_ENV=MIOPEN_FIND_MODE"},
       .source = "a ROCm MoE test script (code search): mpirun --allow-run-as-root ... "
                 "--tag-output --npernode 2 --bind-to numa -x MIOPEN_FIND_MODE=1"});
  add({.name = "proj-mpijob-options-after-program",
       .args = {"@probe", "-n", "2"},
       .source = "Kubeflow MPIJob (icsforth/openmpi image): mpirun /mpibins/hello_c -n 2"});
  add({.name = "proj-horovod-mpiopts",
       .args = {"-np", "2", "-bind-to", "none", "-map-by", "slot", "-x", "PATH", "-mca", "pml",
                "ob1", "-mca", "btl", "^openib", "@probe", "-u", "train.py"},
       .source = "Horovod job scripts: MPIOPTS=\"-np 8 -bind-to none -map-by slot -x PATH -mca "
                 "pml ob1 -mca btl ^openib\"; mpirun ${MPIOPTS} python3 -u train.py"});
  add({.name = "proj-enstools-pytest",
       .args = {"-np", "2", "@probe", "-m", "mpi4py", "-m", "pytest", "--setup-show",
                "--log-cli-level=INFO"},
       .source = "wavestoweather/enstools-freda run_tests.sh"});
  add({.name = "proj-mpi4py-recipe-env",
       .args = {"-n", "3", "@probe", "-m", "mpi4py.bench", "helloworld"},
       .env = {"OMPI_MCA_plm=isolated", "OMPI_MCA_btl_vader_single_copy_mechanism=none",
               "OMPI_MCA_rmaps_base_oversubscribe=yes", "OMPI_ALLOW_RUN_AS_ROOT=1",
               "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"},
       .source = "AnacondaRecipes/mpi4py-feedstock recipe/run_test.bat"});
  add({.name = "proj-mpi4py-bench-helloworld",
       .args = {"-n", "2", "/usr/bin/python3", "-m", "mpi4py.bench", "helloworld"},
       .checks = Stdout | Stderr,
       .source = "AnacondaRecipes/mpi4py-feedstock: mpiexec -n 2 python -m mpi4py.bench "
                 "helloworld"});
  add({.name = "proj-mpi4py-bench-ringtest",
       .args = {"-n", "2", "/usr/bin/python3", "-m", "mpi4py.bench", "ringtest", "-q"},
       .checks = Stderr,
       .source = "AnacondaRecipes/mpi4py-feedstock: mpiexec -n 2 python -m mpi4py.bench "
                 "ringtest (its timings differ)"});
  add({.name = "proj-prte-env-under-4",
       .args = {"-n", "3", "@probe"},
       .checks = kRefusal,
       .env = {"PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe"},
       .source = "mdolab CI test script: PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe "
                 "(Open MPI 5's; 4.1.4 ignores it)"});
  add({.name = "proj-prte-default-hostfile-under-4",
       .args = {"-n", "3", "@probe"},
       .checks = kRefusal,
       .env = {"PRTE_MCA_prte_default_hostfile=hosts"},
       .files = {{"hosts", "localhost slots=3\n"}},
       .source = "Kubeflow MPI Operator's Open MPI 5 variable PRTE_MCA_prte_default_hostfile "
                 "(4.1.4 ignores it: 3 ranks on 2 cores are refused)"});
  add({.name = "proj-hpcg-ppr-pe",
       .args = {"--map-by", "ppr:1:socket:pe=2", "--bind-to", "core", "--report-bindings", "@probe",
                "--nx=144", "--rt=60"},
       .source = "gonzalop72/HPCG_for_Arm ookami_fj2_mpi/borrame/run_mpi.sh"});
  add({.name = "proj-task2-map-socket",
       .args = {"-n", "2", "--map-by", "socket", "@probe", "8000"},
       .source = "haosong/Parallel-Programming-Techniques Homework3/scripts/task2b-p8-n2.sh"});
  add({.name = "proj-cme213-hwthread-socket",
       .args = {"--report-bindings", "--oversubscribe", "-mca", "btl", "^openib", "-n", "3",
                "--bind-to", "hwthread", "--map-by", "socket", "@probe"},
       .checks = Report | Stdout | ExitNonzero,
       .source = "Stanford CME213 binding script: mpiexec --report-bindings --oversubscribe -mca "
                 "btl ^openib -n 6 --bind-to hwthread --map-by socket ./mpi_hello"});
  add({.name = "proj-cme213-hwthread-core",
       .args = {"--report-bindings", "--oversubscribe", "-mca", "btl", "^openib", "-n", "2",
                "--bind-to", "hwthread", "--map-by", "core", "@probe"},
       .source = "Stanford CME213 binding script: --bind-to hwthread --map-by core"});
  add({.name = "proj-node-pe",
       .args = {"-np", "1", "--bind-to", "core", "--map-by", "node:pe=2", "--report-bindings",
                "@probe", "1.0e-2", "5", "10", "2"},
       .source = "a hybrid MPI+OpenMP test script: mpirun -np $1 --bind-to core --map-by "
                 "node:pe=$2 --report-bindings ./Test"});
  add({.name = "proj-node-pe-overload",
       .args = {"-np", "1", "--bind-to", "core:overload-allowed", "--map-by", "node:pe=2",
                "--report-bindings", "@probe"},
       .source = "a hybrid MPI+OpenMP test script: --bind-to core:overload-allowed --map-by "
                 "node:pe=$2"});
  add({.name = "proj-ppr-output-filename",
       .args = {"-np", "2", "--map-by", "ppr:2:socket", "-output-filename",
                "mpi_result_2_core_per_socket", "@probe", "run_mpi_test.py"},
       .checks = kAll | Files,
       .source = "a ppr sweep script: mpirun -np 12 --map-by ppr:${i}:socket -output-filename "
                 "mpi_result_${i}_core_per_socket python run_mpi_test.py"});
  for (const char* map : {"core", "socket", "node"})
    add({.name = std::string("proj-dssc-report-map-") + map,
         .args = {"--report-bindings", "-np", "2", "-map-by", map, "@probe"},
         .source = "a DSSC (ORFEO) batch script: mpirun --report-bindings -np $np -map-by $map "
                   "./test"});
  add({.name = "proj-osu-display-map",
       .args = {"--display-map", "--bind-to", "core", "--map-by", "core", "@probe"},
       .source = "an OSU latency batch script: mpiexec --display-map --bind-to core --map-by "
                 "core osu_latency"});
  add({.name = "proj-hotstuff-hwthread-oversubscribe",
       .args = {"-n", "3", "--use-hwthread-cpus", "--oversubscribe", "@probe", "thiswasfun.py"},
       .source = "devfirejedi4/hotstuff README: mpiexec -n N --use-hwthread-cpus --oversubscribe "
                 "python thiswasfun.py"});
  add({.name = "proj-scatter-socket",
       .args = {"-n", "2", "--report-bindings", "--bind-to", "core", "--map-by", "socket",
                "@probe"},
       .source = "a binding demo script (Scatter): mpiexec -n 4 --report-bindings --bind-to core "
                 "--map-by socket ./main"});
  add({.name = "proj-rankfile-bind-to-socket",
       .args = {"-n", "1", "--bind-to-socket", "--rankfile", "1rank.rankfile", "@probe", "-t",
                "16"},
       .files = {{"1rank.rankfile", "rank 0=localhost slot=0:0-1\n"}},
       .source = "an MPI+OpenMP demo: mpiexec.openmpi -n 1 --bind-to-socket --rankfile "
                 "1rank_2socket.rankfile ./main_mpi_omp -t 16"});
  add({.name = "proj-hpl-bindmem-wrapper",
       .args = {"--map-by", "socket:PE=2", "-np", "1", "--bind-to", "core", "-x",
                "OMP_NUM_THREADS=2", "-x", "OMP_PROC_BIND=close", "-x", "OMP_PLACES=cores",
                "./bindmem.sh", "@probe"},
       .env = {"PROBE_ENV=OMP_NUM_THREADS,OMP_PROC_BIND,OMP_PLACES"},
       .files = {{"bindmem.sh", "#!/bin/sh\nexec \"$@\"\n"}},
       .source = "HPL run scripts (NVIDIA HPC-X): mpirun --map-by ${MAP_BY}:PE=$NT -np $NR "
                 "--bind-to core -x OMP_NUM_THREADS=$NT ... ./bindmem.sh ./xhpl"});
  add({.name = "proj-lammps-var-log",
       .args = {"-np", "2", "@probe", "-var", "x", "2", "-var", "y", "2", "-var", "z", "2", "-in",
                "in.lj", "-log", "log32.log"},
       .files = {{"in.lj", "units lj\n"}},
       .source = "CristianVillazhannay/ME470 HW1/HardScaling2.sh"});
  add({.name = "proj-lammps-stdin",
       .args = {"-n", "2", "@probe"},
       .stdin_text = "units lj\natom_style atomic\nlattice fcc 0.8442\n",
       .source = "meTchaikovsky/physically_inspired_pes example_scripts/lmp_templets/run_md/"
                 "sub.sh: mpirun -n 28 lmp < in.input",
       .mpirun_may_crash = true});
  add({.name = "proj-foam-ppn",
       .args = {"-np", "2", "-ppn", "1", "--host", "localhost", "-wdir", "case", "@probe",
                "-parallel"},
       .checks = kRefusal,
       .files = {{"case/system/controlDict", "application simpleFoam;\n"}},
       .source = "tanewill/foambatch airFoil_runme.sh: mpirun -np 16 -ppn 8 --host $1 -wdir ... "
                 "simpleFoam -parallel (-ppn is Intel MPI's)"});
  add({.name = "proj-foam-machinefile",
       .args = {"-np", "2", "-machinefile", "sp_hostfile", "@probe", "-parallel"},
       .files = {{"sp_hostfile", "localhost\nlocalhost\n"}},
       .source =
           "maoweinilsson/PDC-software-web applications/OpenFOAM/.../openfoam_run_single.sh"});
  add({.name = "proj-gromacs-no-np",
       .args = {"@probe", "mdrun", "-ntomp", "1", "-deffnm", "md"},
       .env = {"OMP_NUM_THREADS=1", "PROBE_ENV=OMP_NUM_THREADS"},
       .source = "converged-computing/jobspec-conversion (MD-nix glycerol water): mpirun gmx_mpi "
                 "mdrun -ntomp $ntomp -deffnm $1"});
  add({.name = "proj-mdrun-args",
       .args = {"-n", "2", "@probe", "-nice", "19", "-v", "-deffnm", "md", "-c", "md.pdb", "-cpi",
                "-append"},
       .source = "GromacsWrapper's local run template: mpiexec -n $NCORES mdrun_mpi -nice 19 -v "
                 "-deffnm md -c md.pdb -cpi -append"});
  add({.name = "proj-tau-ld-preload",
       .args = {"-x", "LD_PRELOAD=:/lib/x86_64-linux-gnu/libm.so.6", "-n", "2", "@probe"},
       .env = {"PROBE_ENV=LD_PRELOAD"},
       .source = "UO-OACISS/tau2 code/release/taucuda_mpirun_tau.sh: mpirun -x "
                 "LD_PRELOAD=$LD_PRELOAD $@"});
  add({.name = "proj-osu-prefix",
       .args = {"--prefix", "/usr", "-np", "2", "-hostfile", "cluster2", "-bind-to", "none",
                "-map-by", "slot", "--mca", "btl_tcp_if_include", "lo", "@probe", "-m",
                "65536:65536", "-i", "1000"},
       .env = {"PROBE_ENV=PATH,LD_LIBRARY_PATH"},
       .files = {{"cluster2", "localhost slots=2\n"}},
       .source = "shyhuai/dl_scheduling network_contention/osu_mpi.sh"});

  // ---- virtual nodes ----
  vnode({.name = "vn-proj-texar-bert",
         .args = {"-np",      "2",
                  "-H",       "node1:1,node2:1",
                  "-bind-to", "none",
                  "-map-by",  "slot",
                  "-x",       "NCCL_DEBUG=INFO",
                  "-x",       "LD_LIBRARY_PATH",
                  "-x",       "PATH",
                  "-mca",     "pml",
                  "ob1",      "-mca",
                  "btl",      "^openib",
                  "@probe",   "--do_train"},
         .env = {"LD_LIBRARY_PATH=/opt/cuda/lib64", "PROBE_ENV=NCCL_DEBUG,LD_LIBRARY_PATH"},
         .source = "asyml/texar examples/bert/run.sh"});
  vnode({.name = "vn-proj-horovod-mpmd",
         .args = {"-np",
                  "1",
                  "-H",
                  "node1:1",
                  "-bind-to",
                  "none",
                  "-map-by",
                  "slot",
                  "-x",
                  "NCCL_DEBUG=INFO",
                  "-mca",
                  "pml",
                  "ob1",
                  "-mca",
                  "btl",
                  "^openib",
                  "@probe",
                  ":",
                  "-H",
                  "node2:1",
                  "-bind-to",
                  "socket",
                  "-report-bindings",
                  "-map-by",
                  "slot",
                  "-x",
                  "NCCL_DEBUG=INFO",
                  "-mca",
                  "pml",
                  "ob1",
                  "-mca",
                  "btl",
                  "^openib",
                  "@probe"},
         .checks = Report | Stdout,
         .env = {"PROBE_ENV=NCCL_DEBUG"},
         .source = "a Horovod PyTorch MPMD script: mpirun -np 2 -H a:2 -bind-to none ... prog : "
                   "-H b:2 -bind-to socket -report-bindings -map-by slot ... prog"});
  vnode({.name = "vn-proj-aws-tag-output",
         .args = {"-np",         "4",
                  "-H",          "node1:2,node2:2",
                  "-bind-to",    "none",
                  "-map-by",     "slot",
                  "-x",          "NCCL_DEBUG=DEBUG",
                  "-x",          "LD_LIBRARY_PATH=/opt/amazon/openmpi/lib:/opt/lib",
                  "-tag-output", "-mca",
                  "pml",         "ob1",
                  "-mca",        "btl",
                  "^openib",     "@probe"},
         .env = {"PROBE_ENV=NCCL_DEBUG,LD_LIBRARY_PATH"},
         .source = "an AWS NCCL send/recv script: /opt/amazon/openmpi/bin/mpirun -np 8 -H a:4,b:4 "
                   "-bind-to none -map-by slot ... -tag-output ..."});
  vnode({.name = "vn-proj-hoplite-ppr-node",
         .args = {"--allow-run-as-root", "--map-by", "ppr:1:node", "-H", "node1,node2", "@probe"},
         .source = "nwtnni/hoplite test_utils/mpirun_pernode.sh"});
  vnode({.name = "vn-proj-gpmdcov-map-node",
         // Without its --mca plm_rsh_no_tree_spawn 1: the suite gives mpirun that one, and
         // mpirun refuses a parameter given twice.
         .args = {"-np", "2", "--map-by", "node", "--hostfile", "hostfile", "-x", "OMP_NUM_THREADS",
                  "-x", "LD_LIBRARY_PATH", "@probe", "input.in"},
         .env = {"OMP_NUM_THREADS=1", "LD_LIBRARY_PATH=/opt/lib",
                 "PROBE_ENV=OMP_NUM_THREADS,LD_LIBRARY_PATH"},
         .files = {{"hostfile", "node1\nnode2\n"}},
         .source = "lanl/qmd-progress examples/gpmdcov/run.sh"});
  vnode({.name = "vn-proj-mlsys-N1",
         .args = {"--hostfile", "hostlist.local", "-np", "2", "-N", "1", "--bind-to", "none", "-x",
                  "MADDR=10.0.0.1", "-x", "MLSYS_ROOT=/opt/mlsys", "--mca", "btl", "tcp,self",
                  "--allow-run-as-root", "--tag-output", "@probe"},
         .env = {"PROBE_ENV=MADDR,MLSYS_ROOT"},
         .files = {{"hostlist.local", "node1 slots=2\nnode2 slots=2\n"}},
         .source = "an ML-systems launch script: mpirun --hostfile hostlist.local -np 16 -N 1 "
                   "--bind-to none -x MADDR=$MADDR ... --mca btl tcp,self --tag-output mrun.sh"});
  // mpirun 4.1.4's ppr mapper puts 1 per socket on each node (rank 1 on node2), each bound to
  // its node's cores 0-1 by the node's daemon (mpilaunch filled node1 and refused the second).
  vnode({.name = "vn-proj-falm-ppr-pe",
         .args = {"-n", "2", "--map-by", "ppr:1:socket:PE=2", "--bind-to", "core",
                  "--report-bindings", "-machinefile", "nodeinf", "@probe"},
         .files = {{"nodeinf", "node1\nnode2\n"}},
         .source = "ki2098/falm app/turbine-json/run.sh"});
  vnode({.name = "vn-proj-sgd-hostfile",
         .args = {"--bind-to", "none", "-n", "2", "--hostfile", "hostfile", "@probe", "--yml-in",
                  "imagenette2-224.yaml", "--gpu", "1", "1", "--batch-size", "28"},
         .files = {{"hostfile", "node1 slots=1\nnode2 slots=1\n"}},
         .source = "an sgd_mpi README: mpirun --bind-to none -n 2 --hostfile hostfile python3 "
                   "mpi_training.py ..."});
  vnode({.name = "vn-proj-icefoam-pbs-nodefile",
         .args = {"-np", "3", "-machinefile", "nodefile", "@probe", "-parallel"},
         .env = {"PBS_NODEFILE=nodefile"},
         .files = {{"nodefile", "node1\nnode1\nnode2\n"}},
         .source = "unicfdlab/iceFoam cylinder2D_DyM/run.sh: mpirun -np 12 -machinefile "
                   "$PBS_NODEFILE reactingParcelSWIMDyMFoam -parallel"});
  return t;
}

}  // namespace mpilaunch::compat
