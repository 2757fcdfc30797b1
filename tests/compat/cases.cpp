// The command lines compared with mpirun 4.1.4. Each is a real spelling from mpirun(1)'s
// examples and option list (or a project that uses mpirun), scaled to this machine: 2 cores
// locally, or virtual nodes node1 and node2 (compat.hpp). A case whose difference is known and
// owned by an issue item says so in `pending`; when the item lands and the two agree, the suite
// says "now same" and the mark comes out.

#include <cstdint>

#include "tests/compat/compat.hpp"

namespace mpilaunch::compat {
namespace {

// Items of issue 20 and 21 that own the known differences.
// MPI_UNIVERSE_SIZE: mpirun also counts its own node's cores when the hosts leave it out
// (virtual nodes); mpilaunch counts the hosts given. docs/mpirun-compat.md.
constexpr const char* kUniverse = "deliberate: universe (docs/mpirun-compat.md)";
constexpr const char* kFramed = "issue 20 item 7: errors framed as Open MPI's help blocks";
constexpr const char* kSpelling = "issue 20 item 9: single-dash spellings";
constexpr const char* kOptions = "issue 20: every other mpirun(1) option";
constexpr const char* kBinding = "issue 21: mapping, ranking and binding";
// mpirun 4.1.4 gives OMPI_MCA_mpi_oversubscribe=1 only on its own node: ranks its orteds start
// on an oversubscribed node get 0. mpilaunch gives 1 on every such node (yield, not busy-poll).
constexpr const char* kOversubscribedRemote =
    "deliberate: oversubscribed remote (docs/mpirun-compat.md)";

// mpirun 4.1.4 puts --prefix's DIR/bin and DIR/lib in front of PATH and LD_LIBRARY_PATH a third
// time for ranks its orteds start (the orted's own environment has them once); mpilaunch puts
// them twice on every node, as mpirun does on its own.
constexpr const char* kPrefixRemote =
    "deliberate: --prefix on remote nodes (docs/mpirun-compat.md)";

// mpirun 4.1.4 ignores --mca given after the first program (no rank gets it); mpilaunch refuses
// it by name.

// An mpi4py.futures program: argv[1] workers (default: mpi4py's choice), argv[2] pools one
// after the other (default 1), argv[3] the spawn's info key host (default none).
constexpr const char* kMpi4pyPool = R"(import sys
from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor


def where(_):
    world = MPI.COMM_WORLD
    spawned = MPI.Comm.Get_parent() != MPI.COMM_NULL
    return (world.Get_size(), spawned, world.Get_attr(MPI.UNIVERSE_SIZE))


if __name__ == "__main__":
    kw = {"max_workers": int(sys.argv[1])} if len(sys.argv) > 1 else {}
    if len(sys.argv) > 3:
        kw["mpi_info"] = {"host": sys.argv[3]}
    for batch in range(int(sys.argv[2]) if len(sys.argv) > 2 else 1):
        with MPIPoolExecutor(**kw) as pool:
            print("batch", batch, "squares", sum(pool.map(pow, range(100), [2] * 100)))
            print("batch", batch, "workers", sorted(set(pool.map(where, range(64)))))
)";

// Each process writes its own argv[0] (from /proc/self/cmdline: the interpreter's) to a file
// (mpirun 4.1.4 runs spawned children's output lines together); the parent spawns 2 children.
constexpr const char* kArgvSpawn = R"(from mpi4py import MPI


def argv0():
    with open("/proc/self/cmdline", "rb") as f:
        return f.read().split(b"\0")[0].decode()


parent = MPI.Comm.Get_parent()
who = "parent" if parent == MPI.COMM_NULL else "child"
with open(f"argv0.{who}.{MPI.COMM_WORLD.Get_rank()}", "w") as out:
    out.write(argv0() + "\n")
if parent == MPI.COMM_NULL:
    MPI.COMM_WORLD.Spawn("/usr/bin/python3", ["argv_spawn.py"], maxprocs=2).Disconnect()
else:
    parent.Disconnect()
)";

constexpr unsigned kAll = Report | Stdout | Stderr;
constexpr unsigned kRefusal = ExitNonzero | Framed;

std::vector<Case> table() {
  std::vector<Case> t;
  auto add = [&](Case c) { t.push_back(std::move(c)); };

  // ---- one node (this machine: 2 cores) ----
  add({.name = "np2", .args = {"-np", "2", "@probe"}, .source = "mpirun(1): mpirun -np 4 ./a.out"});
  add({.name = "n1", .args = {"-n", "1", "@probe"}, .source = "mpirun(1): -n"});
  add({.name = "long-np", .args = {"--np", "2", "@probe"}, .source = "mpirun(1): --np"});
  add({.name = "c2", .args = {"-c", "2", "@probe"}, .source = "mpirun(1): -c, -n, --n, -np"});
  add({.name = "args",
       .args = {"-n", "2", "@probe", "in.dat", "two words", "--flag=x", "-n", "3"},
       .source = "mpirun(1): program arguments are the program's"});
  add({.name = "no-np",
       .args = {"@probe"},
       .source = "mpirun(1): without -np, one process per slot (2 cores here)"});
  add({.name = "oversubscribe",
       .args = {"-n", "3", "--oversubscribe", "@probe"},
       .source = "mpirun(1): --oversubscribe"});
  add({.name = "nolocal-alone",
       .args = {"--nolocal", "-n", "1", "@probe"},
       .checks = kRefusal,
       .source = "mpirun(1): -nolocal with this machine the only host"});
  add({.name = "too-many-ranks",
       .args = {"-n", "3", "@probe"},
       .checks = kRefusal,
       .source = "mpirun(1): more processes than slots is an error without --oversubscribe"});
  add({.name = "nooversubscribe",
       .args = {"--nooversubscribe", "-n", "2", "@probe"},
       .source = "mpirun(1): --nooversubscribe"});
  add({.name = "nooversubscribe-single-dash",
       .args = {"-nooversubscribe", "-n", "2", "@probe"},
       .source = "mpirun(1): -nooversubscribe"});
  add({.name = "mca-oversubscribe-env",
       .args = {"-n", "3", "@probe"},
       .env = {"OMPI_MCA_rmaps_base_oversubscribe=1"},
       .source = "issue 20: OMPI_MCA_rmaps_base_oversubscribe=1 in the environment"});
  add({.name = "host-localhost-17",
       .args = {"-H", "localhost:17", "-n", "2", "@probe"},
       .source = "issue 20 item 3: -host localhost:17 gives MPI_UNIVERSE_SIZE 17"});
  add({.name = "host-localhost-2",
       .args = {"-host", "localhost:2", "-np", "2", "@probe"},
       .source = "mpirun(1): -host"});
  add({.name = "host-localhost",
       .args = {"--host", "localhost", "-n", "1", "@probe"},
       .source = "mpirun(1): --host without :N (one slot)"});
  add({.name = "host-localhost-too-many",
       .args = {"--host", "localhost", "-n", "2", "@probe"},
       .checks = kRefusal,
       .source = "mpirun(1): --host without :N gives one slot"});
  add({.name = "hostfile-slots",
       .args = {"--hostfile", "hf", "-n", "2", "@probe"},
       .files = {{"hf", "localhost slots=2\n"}},
       .source = "mpirun(1): --hostfile with slots="});
  add({.name = "hostfile-no-slots",
       .args = {"--hostfile", "hf", "@probe"},
       .files = {{"hf", "localhost\n"}},
       .source = "issue 20 item 4: a hostfile line without slots= counts the cores"});
  // --hostfile with -H in one context (mpirun 4.1.4, measured): -H's slots, not slots=.
  add({.name = "hostfile-and-host-slots",
       .args = {"--hostfile", "hf", "-H", "localhost", "-n", "1", "@probe"},
       .files = {{"hf", "localhost slots=4 max_slots=8\n"}},
       .source = "mpirun(1): --hostfile and -H: the -H slots count"});
  add({.name = "hostfile-and-host-too-many",
       .args = {"--hostfile", "hf", "-H", "localhost", "-n", "2", "@probe"},
       .checks = kRefusal,
       .files = {{"hf", "localhost slots=4\n"}},
       .source = "mpirun(1): --hostfile slots=4 and -H localhost: one slot"});
  add({.name = "hostfile-and-host-twice",
       .args = {"--hostfile", "hf", "-H", "localhost,localhost", "-n", "2", "@probe"},
       .files = {{"hf", "localhost slots=4\n"}},
       .source = "mpirun(1): --hostfile and -H naming the host twice: two slots"});
  add({.name = "machinefile",
       .args = {"-machinefile", "hf", "-np", "2", "@probe"},
       .files = {{"hf", "localhost slots=2\n"}},
       .source = "mpirun(1): -machinefile"});
  add({.name = "tag-output",
       .args = {"--tag-output", "-n", "2", "@probe"},
       .source = "mpirun(1): --tag-output"});
  add({.name = "tag-output-single-dash",
       .args = {"-tag-output", "-np", "2", "@probe"},
       .source = "mpirun(1): -tag-output"});
  add({.name = "timestamp-output",
       .args = {"--timestamp-output", "-n", "2", "@probe"},
       .source = "mpirun(1): --timestamp-output"});
  add({.name = "tag-and-timestamp",
       .args = {"--tag-output", "--timestamp-output", "-n", "2", "@probe"},
       .source = "mpirun(1): --tag-output with --timestamp-output"});
  // mpirun 4.1.4 sends its --report-bindings lines as each rank's stderr (measured).
  add({.name = "tag-output-report-bindings",
       .args = {"--tag-output", "--report-bindings", "-n", "2", "@probe"},
       .source = "mpirun(1): --report-bindings with --tag-output (binding lines tagged)"});
  add({.name = "timestamp-report-bindings",
       .args = {"--timestamp-output", "--report-bindings", "-n", "2", "@probe"},
       .source = "mpirun(1): --report-bindings with --timestamp-output"});
  add({.name = "output-filename-report-bindings",
       .args = {"--report-bindings", "--output-filename", "of", "-n", "2", "@probe"},
       .checks = kAll | Files | FileLines,
       .source = "mpirun(1): --report-bindings with --output-filename (lines in the files)"});
  add({.name = "output-filename",
       .args = {"--output-filename", "of", "-n", "2", "@probe"},
       .checks = kAll | Files,
       .source = "mpirun(1): --output-filename"});
  add({.name = "output-filename-merge",
       .args = {"--output-filename", "of", "--merge-stderr-to-stdout", "-n", "2", "@probe"},
       .checks = kAll | Files | FileLines,
       .source = "mpirun(1): --output-filename with --merge-stderr-to-stdout"});
  add({.name = "output-filename-merge-tagged",
       .args = {"-tag-output", "-output-filename", "of", "-merge-stderr-to-stdout", "-np", "2",
                "@probe"},
       .checks = kAll | Files | FileLines,
       .source = "mpirun(1): tagged lines of both streams in one file"});
  add({.name = "merge-stderr-to-stdout",
       .args = {"--merge-stderr-to-stdout", "-n", "2", "@probe"},
       .source = "mpirun(1): --merge-stderr-to-stdout (4.1.4 keeps the terminal's streams apart)"});
  add({.name = "stdin-rank0",
       .args = {"-n", "2", "@probe"},
       .stdin_text = binary_input(200'000),
       .source = "issue 20 item 1: mpirun -n 2 ./app < input",
       .mpirun_may_crash = true});
  add({.name = "stdin-rank1",
       .args = {"--stdin", "1", "-n", "2", "@probe"},
       .stdin_text = binary_input(50'000),
       .source = "mpirun(1): --stdin rank",
       .mpirun_may_crash = true});
  add({.name = "stdin-none",
       .args = {"--stdin", "none", "-n", "2", "@probe"},
       .stdin_text = "ignored\n",
       .source = "mpirun(1): --stdin none",
       .mpirun_may_crash = true});
  add({.name = "x-value",
       .args = {"-x", "PROBE_FOO=bar", "-n", "2", "@probe"},
       .env = {"PROBE_ENV=PROBE_FOO"},
       .source = "mpirun(1): -x FOO=bar"});
  add({.name = "x-from-env",
       .args = {"-x", "PROBE_FOO", "-np", "2", "@probe"},
       .env = {"PROBE_ENV=PROBE_FOO", "PROBE_FOO=from the environment"},
       .source = "mpirun(1): -x FOO exports the launcher's value"});
  add({.name = "x-ld-library-path",
       .args = {"-x", "LD_LIBRARY_PATH", "-x", "PROBE_FOO=1", "-n", "1", "@probe"},
       .env = {"PROBE_ENV=PROBE_FOO,LD_LIBRARY_PATH", "LD_LIBRARY_PATH=/opt/lib"},
       .source = "mpirun(1): mpirun -x DISPLAY -x OFILE=/tmp/out ..."});
  add({.name = "wdir",
       .args = {"--wdir", "sub", "-n", "2", "@probe"},
       .files = {{"sub/keep", ""}},
       .source = "mpirun(1): -wdir <dir>"});
  add({.name = "wdir-single-dash",
       .args = {"-wdir", "sub", "-n", "2", "@probe"},
       .files = {{"sub/keep", ""}},
       .source = "mpirun(1): -wdir <dir>"});
  add({.name = "mpmd",
       .args = {"-n", "1", "@probe", "first", ":", "-n", "1", "@probe", "second"},
       .source = "mpirun(1): mpirun -np 2 a.out : -np 2 b.out"});
  // mpirun 4.1.4 runs the MPICH rank as a singleton and fails the job (exit 1); mpilaunch
  // refuses the line by name before starting anything.
  add({.name = "mpmd-two-mpi-libraries",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "@app:hello_mpich"},
       .checks = kRefusal,
       .source = "issue 20: an Open MPI and an MPICH program in one MPMD job"});
  // mpirun 4.1.4 ignores --mca after the first program: no rank gets it, it steers nothing
  // (measured); ignored with a warning.
  add({.name = "mpmd-mca-later-context",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "--mca", "btl_base_verbose", "0", "@probe"},
       .checks = Report,
       .env = {"PROBE_ENV=OMPI_MCA_btl_base_verbose"},
       .source = "mpirun 4.1.4: --mca with a later MPMD context"});
  add({.name = "mpmd-mca-later-context-steers-nothing",
       .args = {"-H", "localhost:1", "-n", "1", "@probe", ":", "-n", "1", "--mca",
                "rmaps_base_oversubscribe", "1", "@probe"},
       .checks = kRefusal,
       .source = "mpirun 4.1.4: --mca rmaps_base_oversubscribe 1 with a later context"});
  // Options given with a later MPMD context (mpirun 4.1.4, measured): only that context's ranks
  // get their MCA parameter; the output options change nothing in the output, --report-bindings
  // has the context's ranks print their own binding, --bind-to none unbinds the whole job.
  const std::string later_env =
      "PROBE_ENV=OMPI_MCA_orte_tag_output,OMPI_MCA_orte_timestamp_output,"
      "OMPI_MCA_hwloc_base_report_bindings,OMPI_MCA_hwloc_base_binding_policy,"
      "OMPI_MCA_rmaps_base_oversubscribe,OMPI_MCA_orte_output_filename";
  add({.name = "mpmd-later-tag-output",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "--tag-output", "@probe"},
       .env = {later_env},
       .source = "issue 20: --tag-output with a later MPMD context"});
  add({.name = "mpmd-later-timestamp-output",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "--timestamp-output", "@probe"},
       .env = {later_env},
       .source = "issue 20: --timestamp-output with a later MPMD context"});
  add({.name = "mpmd-later-report-bindings",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "--report-bindings", "@probe"},
       .env = {later_env},
       .source = "issue 20: --report-bindings with a later MPMD context"});
  add({.name = "mpmd-later-bind-to-none",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "--bind-to", "none", "@probe"},
       .env = {later_env},
       .source = "issue 20: --bind-to none with a later MPMD context (the whole job unbound)"});
  add({.name = "mpmd-later-report-bindings-unbound",
       .args = {"--bind-to", "none", "-n", "1", "@probe", ":", "-n", "1", "--report-bindings",
                "@probe"},
       .env = {later_env},
       .source = "issue 20: --report-bindings with a later context of an unbound job"});
  add({.name = "mpmd-later-oversubscribe",
       .args = {"-H", "localhost:2", "-n", "2", "@probe", ":", "-n", "1", "--oversubscribe",
                "@probe"},
       .env = {later_env},
       .source = "issue 20: --oversubscribe with a later MPMD context (the whole job)"});
  add({.name = "mpmd-later-output-options",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "--output-filename", "of",
                "--merge-stderr-to-stdout", "--stdin", "none", "--display-map",
                "--display-allocation", "@probe"},
       .checks = kAll | Files,
       .stdin_text = "to rank 0\n",
       .env = {later_env},
       .source = "issue 20: output options with a later MPMD context (no effect)",
       .mpirun_may_crash = true});
  add({.name = "mpmd-first-tag-output",
       .args = {"--tag-output", "--report-bindings", "-n", "1", "@probe", ":", "-n", "1", "@probe"},
       .env = {later_env},
       .source = "issue 20: output options with the first MPMD context (the whole job)"});
  // A line's output options change nothing under mpirun 4.1.4 (measured), even the first
  // line's; its MCA parameters reach every rank (first line) or the line's ranks.
  add({.name = "appfile-output-options",
       .args = {"--app", "appfile"},
       .checks = kAll | Files,
       .env = {later_env},
       .files = {{"appfile",
                  "-n 1 --tag-output --report-bindings @probe\n-n 1 --timestamp-output "
                  "--output-filename of --display-map @probe\n"}},
       .source = "mpirun(1): --app with output options on its lines"});
  add({.name = "appfile-output-options-command-line",
       .args = {"--tag-output", "--app", "appfile"},
       .env = {later_env},
       .files = {{"appfile", "-n 1 @probe\n-n 1 --report-bindings @probe\n"}},
       .source = "mpirun(1): --tag-output with --app (every line's ranks)"});
  // The job binds as the last line's --bind-to says, else the command line's (measured).
  add({.name = "appfile-bind-to-first-line",
       .args = {"--app", "appfile"},
       .files = {{"appfile", "-n 1 --bind-to none @probe\n-n 1 @probe\n"}},
       .source = "issue 20: --bind-to on an appfile's first line only"});
  add({.name = "appfile-bind-to-last-line",
       .args = {"--app", "appfile"},
       .files = {{"appfile", "-n 1 @probe\n-n 1 --bind-to none @probe\n"}},
       .source = "issue 20: --bind-to on an appfile's last line only"});
  add({.name = "appfile-bind-to-command-line",
       .args = {"--bind-to", "none", "--app", "appfile"},
       .files = {{"appfile", "-n 1 @probe\n-n 1 @probe\n"}},
       .source = "issue 20: --bind-to none with --app"});
  add({.name = "appfile",
       .args = {"--app", "appfile"},
       .files = {{"appfile", "-n 1 @probe first\n-n 1 @probe second\n"}},
       .source = "mpirun(1): --app <appfile>"});
  // mpirun 4.1.4 (measured) ignores the command line's -H and --hostfile with --app: the lines
  // run where they would without them (both here, beyond the one slot given). mpilaunch says
  // so on stderr.
  add({.name = "appfile-command-line-host",
       .args = {"-H", "localhost:1", "--app", "appfile"},
       .checks = Report | Stdout,
       .files = {{"appfile", "-n 1 @probe\n-n 1 @probe\n"}},
       .source = "issue 20: -H on the command line with --app"});
  add({.name = "appfile-command-line-hostfile",
       .args = {"--hostfile", "hf", "--app", "appfile"},
       .checks = Report | Stdout,
       .files = {{"appfile", "-n 1 @probe\n-n 1 @probe\n"}, {"hf", "localhost slots=1\n"}},
       .source = "issue 20: --hostfile on the command line with --app"});
  // A line's --ppr, --cpus-per-proc and --use-hwthread-cpus change nothing (measured), on any
  // line; their MCA parameters reach the line's ranks (the first line's every rank).
  add({.name = "appfile-ppr-last-line",
       .args = {"--app", "appfile"},
       .checks = Report | Stdout,
       .files = {{"appfile", "-n 1 @probe\n-n 1 --ppr 1:node @probe\n"}},
       .source = "issue 20: --ppr on an appfile's last line"});
  add({.name = "appfile-placement-first-line",
       .args = {"--app", "appfile"},
       .checks = Report | Stdout,
       .files = {{"appfile",
                  "-n 1 --ppr 1:node --cpus-per-proc 2 --use-hwthread-cpus @probe\n-n 1 @probe\n"}},
       .source =
           "issue 20: --ppr, --cpus-per-proc, --use-hwthread-cpus on an appfile's first line"});
  add({.name = "mpmd-ppr-later-context",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "--ppr", "1:node", "@probe"},
       .checks = Report | Stdout,
       .source = "issue 20: --ppr with a later MPMD context"});
  // -n 0 runs a rank on every slot, as no -n does (measured: with -H, a host file, neither).
  add({.name = "np-zero", .args = {"-n", "0", "@probe"}, .source = "mpirun(1): -n 0"});
  add({.name = "np-zero-hosts",
       .args = {"-np", "0", "-H", "localhost:3", "@probe"},
       .source = "mpirun(1): -np 0 with -H"});
  add({.name = "appfile-np-zero",
       .args = {"--app", "appfile"},
       .files = {{"appfile", "-n 0 @probe\n"}},
       .source = "mpirun(1): -n 0 on an appfile line"});
  // --prefix: the first given before the first program (with --app: the command line's, else
  // the first line's) for every rank; a second or later one is ignored (measured; mpirun warns
  // only of a first line's that differs from the command line's).
  add({.name = "prefix-twice",
       .args = {"--prefix", "/usr", "--prefix", "/opt/x", "-n", "1", "@probe"},
       .checks = Report | Stdout,
       .env = {"PROBE_ENV=PATH,LD_LIBRARY_PATH", "LD_LIBRARY_PATH=/opt/lib"},
       .source = "issue 20: --prefix given twice"});
  add({.name = "prefix-later-context",
       .args = {"-n", "1", "@probe", ":", "-n", "1", "--prefix", "/opt/x", "@probe"},
       .checks = Report | Stdout,
       .env = {"PROBE_ENV=PATH,LD_LIBRARY_PATH", "LD_LIBRARY_PATH=/opt/lib"},
       .source = "issue 20: --prefix with a later MPMD context only"});
  add({.name = "prefix-appfile-lines",
       .args = {"--app", "appfile"},
       .checks = Report | Stdout,
       .env = {"PROBE_ENV=PATH,LD_LIBRARY_PATH", "LD_LIBRARY_PATH=/opt/lib"},
       .files = {{"appfile", "--prefix /opt/y -n 1 @probe\n--prefix /opt/x -n 1 @probe\n"}},
       .source = "issue 20: --prefix on two appfile lines"});
  add({.name = "prefix-appfile-command-line",
       .args = {"--prefix", "/usr", "--app", "appfile"},
       .checks = Report | Stdout,
       .env = {"PROBE_ENV=PATH,LD_LIBRARY_PATH", "LD_LIBRARY_PATH=/opt/lib"},
       .files = {{"appfile", "--prefix /opt/y -n 1 @probe\n-n 1 @probe\n"}},
       .source = "issue 20: --prefix on the command line and the first appfile line"});
  add({.name = "mca-btl",
       .args = {"--mca", "btl", "self,vader", "-n", "2", "@probe"},
       .source = "mpirun(1): mpirun --mca btl tcp,self -np 1 foo"});
  add({.name = "mca-single-dash",
       .args = {"-mca", "btl", "^openib", "-np", "2", "@probe"},
       .source = "common job scripts: -mca btl ^openib"});
  add({.name = "allow-run-as-root",
       .args = {"--allow-run-as-root", "-n", "2", "@probe"},
       .source = "mpirun(1): --allow-run-as-root (container entrypoints)"});
  add({.name = "quiet", .args = {"-q", "-n", "2", "@probe"}, .source = "mpirun(1): -q, --quiet"});
  // --prefix: DIR/bin and DIR/lib twice in front of PATH and LD_LIBRARY_PATH, once in front of a
  // -x value; OPAL_PREFIX untouched.
  add({.name = "prefix",
       .args = {"--prefix", "/usr", "-n", "2", "@probe"},
       .env = {"PROBE_ENV=PATH,LD_LIBRARY_PATH,OPAL_PREFIX", "LD_LIBRARY_PATH=/opt/lib"},
       .source = "mpirun(1): --prefix <dir>"});
  add({.name = "prefix-x",
       .args = {"-prefix", "/opt/ompi/", "-x", "LD_LIBRARY_PATH=/opt/lib", "-n", "1", "@probe"},
       .env = {"PROBE_ENV=PATH,LD_LIBRARY_PATH,OPAL_PREFIX"},
       .source = "mpirun(1): --prefix with -x LD_LIBRARY_PATH"});
  // --path DIR[:DIR]: the program is looked up in each DIR (relative ones from the working
  // directory), then PATH, then the working directory; the ranks' PATH is unchanged and the
  // context's ranks get OMPI_exec_path. Each script says which copy was found.
  const std::string pbin_probe = "#!/bin/sh\nexec @probe pbin \"$@\"\n";
  add({.name = "path",
       .args = {"--path", "pbin", "-n", "2", "pprobe", "x"},
       .env = {"PROBE_ENV=OMPI_exec_path,PATH"},
       .files = {{"pbin/pprobe", pbin_probe}},
       .source = "mpirun(1): --path <path>"});
  add({.name = "path-from-wdir",
       .args = {"--wdir", "sub", "-path", "pbin", "-n", "1", "pprobe"},
       .env = {"PROBE_ENV=OMPI_exec_path"},
       .files = {{"pbin/pprobe", pbin_probe},
                 {"sub/pbin/pprobe", "#!/bin/sh\nexec @probe sub/pbin \"$@\"\n"}},
       .source = "mpirun(1): --path with a relative directory and --wdir"});
  add({.name = "path-before-path-env",
       .args = {"--path", "nothere:pbin", "-n", "1", "hostname"},
       .files = {{"pbin/hostname", pbin_probe}},
       .source = "mpirun(1): --path <path> (a list; searched before PATH)"});
  add({.name = "path-mpmd-later-context",
       .args = {"--oversubscribe", "-n", "1", "--path", "pbin", "pprobe", "a", ":", "-n", "1",
                "pprobe", "b"},
       .env = {"PROBE_ENV=OMPI_exec_path"},
       .files = {{"pbin/pprobe", pbin_probe}},
       .source = "mpirun(1): --path in one MPMD context holds for the later ones"});
  add({.name = "path-mpmd-earlier-context",
       .args = {"--oversubscribe", "-n", "1", "pprobe", "a", ":", "-n", "1", "--path", "pbin",
                "pprobe", "b"},
       .checks = kRefusal,
       .files = {{"pbin/pprobe", pbin_probe}},
       .source = "mpirun(1): --path in a later MPMD context does not reach an earlier one"});
  add({.name = "path-appfile",
       .args = {"--oversubscribe", "--app", "app"},
       .env = {"PROBE_ENV=OMPI_exec_path"},
       .files = {{"pbin/pprobe", pbin_probe},
                 {"app", "-n 1 --path pbin pprobe a\n-n 1 pprobe b\n"}},
       .source = "mpirun(1): --path on an appfile line"});
  add({.name = "path-command-line-appfile",
       .args = {"--path", "pbin", "--app", "app"},
       .checks = kRefusal,
       .files = {{"pbin/pprobe", pbin_probe}, {"app", "-n 1 pprobe\n"}},
       .source = "mpirun(1): --path on the command line is not used for the appfile's lines"});
  add({.name = "program-in-wdir",
       .args = {"-n", "2", "pprobe"},
       .files = {{"pprobe", "#!/bin/sh\nexec @probe wdir \"$@\"\n"}},
       .source = "mpirun(1): a program name found in the working directory, not in PATH"});
  add({.name = "am",
       .args = {"--am", "params.conf", "-n", "2", "@probe"},
       .env = {"PROBE_ENV=OMPI_MCA_mca_base_param_file_prefix"},
       .files = {{"params.conf", "# an aggregate MCA parameter set\nbtl_tcp_if_include = lo\n"}},
       .source = "mpirun(1): -am <arg0>, aggregate MCA parameter set file list"});
  // mpirun prints "Unable to locate the variable file" once for itself (with its pid) and each
  // rank once more: only the ranks' lines are mpilaunch's, so stderr is not compared.
  add({.name = "am-missing",
       .args = {"-am", "nonexistent.conf", "-n", "1", "@probe"},
       .checks = Report | Stdout,
       .env = {"PROBE_ENV=OMPI_MCA_mca_base_param_file_prefix"},
       .source = "mpirun(1): -am with a file that is not there"});
  add({.name = "tune",
       .args = {"--tune", "tune.conf", "-n", "3", "@probe"},
       .env = {"PROBE_ENV=FOO,BAZ,HOMEX,OMPI_MCA_mca_base_envar_file_prefix,"
               "OMPI_MCA_rmaps_base_oversubscribe",
               "HOMEX=from-env"},
       .files = {{"tune.conf",
                  "# tuned\n-x FOO=bar -x BAZ=q\n-mca rmaps_base_oversubscribe 1\n\n"
                  "--mca btl_tcp_if_include lo\n-x HOMEX\n"}},
       .source = "mpirun(1): -tune <tune_file>, -x and -mca lines (oversubscribed by the file)"});
  add({.name = "tune-command-line-wins",
       .args = {"-x", "FOO=cmd", "-tune", "a.conf,b.conf", "-n", "1", "@probe", ":", "-n", "1",
                "@probe"},
       .env = {"PROBE_ENV=FOO,BAZ,OMPI_MCA_mca_base_envar_file_prefix"},
       .files = {{"a.conf", "-x FOO=a -x BAZ=a\n"}, {"b.conf", "-x BAZ=b\n"}},
       .source = "mpirun(1): -tune, two files, a command-line -x of the same name, MPMD"});
  // A --tune file is read by Open MPI's parameter file parser (mpirun-facts.md "deprec"): a
  // quoted -x value a blank follows is one value, quotes and blank kept; `name = value` lines
  // set parameters too (here mpirun's own oversubscription).
  add({.name = "tune-quoted-and-name-value",
       .args = {"--tune", "t.conf", "-n", "3", "@probe"},
       .env = {"PROBE_ENV=T_A,T_B,T_C"},
       .files = {{"t.conf",
                  "# tuned\n-x T_B=\"x y\" -x T_A=1 # why\nrmaps_base_oversubscribe = 1\n"
                  "-mca T_C \"a b\" \n"}},
       .source = "mpirun(1): -tune <tune_file>, quoted values and a name = value line"});
  // What the parser cannot read mpirun reports and skips ("keyval parser: error 2 reading file
  // ... at line 1"), and it runs; mpilaunch warns in its own words.
  add({.name = "tune-skips-unreadable",
       .args = {"-tune", "t.conf", "-n", "1", "@probe"},
       .checks = Report | Stdout,
       .env = {"PROBE_ENV=T_A,T_D"},
       .files = {{"t.conf", "-np 2\n-x T_A=1 -x T_D='p q'\n--bind-to core\n"}},
       .source = "mpirun(1): -tune with lines that are not -x or -mca"});
  add({.name = "tune-missing-file",
       .args = {"--tune", "no-such.conf", "-n", "1", "@probe"},
       .checks = Report | Stdout,
       .env = {"PROBE_ENV=OMPI_MCA_mca_base_envar_file_prefix"},
       .source = "mpirun(1): -tune with a file that is not there (mpirun warns and runs)"});
  // --display-diffable-map: mpirun 4.1.4's <map> text (no job id, no host name in it).
  add({.name = "display-diffable-map",
       .args = {"--display-diffable-map", "-n", "2", "@probe"},
       .source = "mpirun(1): --display-diffable-map"});
  add({.name = "display-diffable-map-socket",
       .args = {"-display-diffable-map", "--bind-to", "socket", "--display-map", "-n", "2",
                "@probe"},
       .source = "mpirun(1): --display-diffable-map with --display-map, bound to the socket"});
  add({.name = "display-diffable-map-unbound",
       .args = {"--display-diffable-map", "--bind-to", "none", "-n", "2", "@probe"},
       .source = "mpirun(1): --display-diffable-map of unbound ranks"});
  add({.name = "display-diffable-map-mpmd",
       .args = {"--display-diffable-map", "-n", "1", "@probe", ":", "-n", "1", "@probe"},
       .source = "mpirun(1): --display-diffable-map of two application contexts"});
  add({.name = "display-diffable-map-mca-env",
       .args = {"-n", "1", "@probe"},
       .env = {"OMPI_MCA_rmaps_base_display_diffable_map=1"},
       .source = "mpirun(1): --display-diffable-map as an MCA parameter"});
  add({.name = "display-topo",
       .args = {"--display-topo", "-n", "2", "@probe"},
       .env = {"PROBE_ENV=OMPI_MCA_rmaps_base_display_topo_with_map"},
       .source = "mpirun(1): --display-topo"});
  // A spawned child that exits 3 before MPI_Init: mpirun 4.1.4 aborts the job and exits with
  // the child's status, with or without --report-child-jobs-separately (measured).
  add({.name = "report-child-jobs-separately",
       .args = {"--report-child-jobs-separately", "-n", "1", "@app:dynamic", "spawn-dies", "3"},
       .checks = Stdout,
       .source = "mpirun(1): --report-child-jobs-separately with a failing spawned child"});
  // A spawned process's own MPI_Comm_spawn: mpirun 4.1.4 serves it as its job 3 (measured):
  // 42 and 43 go down, 143 and 1143 come back up; a grandchild that exits 3 before MPI_Init
  // ends the job with status 3 under both.
  add({.name = "spawn-nested",
       .args = {"-H", "localhost:4", "-n", "1", "--tag-output", "@app:dynamic", "spawn-nested",
                "2"},
       .checks = Stdout,
       .source = "MPI_Comm_spawn from a spawned process (mpirun 4.1.4's job 3)"});
  add({.name = "vn-spawn-nested",
       .nodes = Nodes::Virtual,
       .args = {"-H", "dyn1:2,dyn2:2,dyn3:2", "-n", "1", "--tag-output", "@app:dynamic",
                "spawn-nested", "2"},
       .checks = Stdout,
       .source = "MPI_Comm_spawn from a spawned process on 3 nodes (mpirun 4.1.4's job 3)"});
  // The spawned jobs' --report-bindings lines as their processes' stderr (measured: tagged
  // [2,R]<stderr>: and [3,R]<stderr>:; on 2 cores the children are unbound, the grandchild bound).
  add({.name = "spawn-nested-tag-output-report-bindings",
       .args = {"-H", "localhost:4", "-n", "1", "--tag-output", "--report-bindings", "@app:dynamic",
                "spawn-nested", "2"},
       .checks = Stdout | Stderr,
       .source = "MPI_Comm_spawn from a spawned process, --report-bindings with --tag-output"});
  add({.name = "spawn-nested-dies",
       .args = {"--oversubscribe", "-n", "1", "--tag-output", "@app:dynamic", "spawn-nested-dies",
                "3"},
       .checks = Stdout,
       .source = "MPI_Comm_spawn from a spawned process whose child exits 3 before MPI_Init"});
  // mpirun's JOB MAP table (its job number normalised by the suite).
  add({.name = "display-map",
       .args = {"--display-map", "-n", "2", "@probe"},
       .source = "mpirun(1): --display-map"});
  add({.name = "display-map-single-dash-unbound",
       .args = {"-display-map", "--bind-to", "none", "-np", "2", "@probe"},
       .source = "mpirun(1): -display-map, ranks not bound"});
  add({.name = "display-map-mpmd",
       .args = {"--display-map", "-n", "1", "@probe", ":", "-n", "1", "@probe"},
       .source = "mpirun(1): --display-map of an MPMD job (App: N)"});
  add({.name = "display-map-and-allocation",
       .args = {"--display-allocation", "--display-map", "-H", "localhost:2", "-n", "2", "@probe"},
       .source = "mpirun(1): --display-allocation with --display-map"});
  add({.name = "display-allocation",
       .args = {"--display-allocation", "-n", "2", "@probe"},
       .source = "mpirun(1): --display-allocation"});
  add({.name = "display-alloc-mca-env",
       .args = {"-n", "1", "@probe"},
       .env = {"OMPI_MCA_orte_display_alloc=1"},
       .source = "mpirun(1): --display-allocation as an MCA parameter"});
  // mpirun 4.1.4 passes --display-devel-allocation as orte_display_devel_alloc and honours
  // that name and ras_base_display_devel_alloc from its environment (measured).
  add({.name = "display-devel-allocation-env",
       .args = {"--display-devel-allocation", "-n", "1", "@probe"},
       .env = {"PROBE_ENV=OMPI_MCA_orte_display_devel_alloc,OMPI_MCA_orte_display_alloc"},
       .source = "mpirun(1): --display-devel-allocation, the parameter the ranks get"});
  add({.name = "display-devel-alloc-mca-env",
       .args = {"-n", "1", "@probe"},
       .env = {"OMPI_MCA_ras_base_display_devel_alloc=1"},
       .source = "mpirun(1): --display-devel-allocation as an MCA parameter"});
  // Options without effect here still give the ranks mpirun 4.1.4's parameters (measured).
  add({.name = "no-effect-options-env",
       .args = {"--debug-daemons", "--debug-daemons-file", "--leave-session-attached",
                "--report-child-jobs-separately", "--novm", "--use-regexp", "--show-progress",
                "--do-not-resolve", "-v", "-n", "1", "@probe"},
       .checks = Report | Stdout,  // mpirun's daemon prints its debugging on stderr
       .env = {"PROBE_ENV=OMPI_MCA_orte_debug_daemons,OMPI_MCA_orte_debug_daemons_file,"
               "OMPI_MCA_orte_leave_session_attached,OMPI_MCA_orte_report_child_jobs_separately,"
               "OMPI_MCA_orte_no_vm,OMPI_MCA_orte_use_regexp,OMPI_MCA_orte_report_launch_progress,"
               "OMPI_MCA_opal_if_do_not_resolve,OMPI_MCA_orte_debug"},
       .source = "mpirun(1): debugging and launch options, the parameters the ranks get"});
  // -d: mpirun's ranks print their session directories (Open MPI reads orte_debug); only what
  // the ranks saw is compared.
  add({.name = "debug-devel-env",
       .args = {"-d", "-n", "1", "@probe"},
       .checks = Report,
       .env = {"PROBE_ENV=OMPI_MCA_orte_debug"},
       .source = "mpirun(1): -d, the parameter the ranks get"});
  // --ppr X: mpirun 4.1.4 prints a deprecation block on stderr and maps as --map-by ppr:X.
  add({.name = "ppr-deprecated",
       .args = {"--ppr", "2:node", "@probe"},
       .source = "mpirun(1): --ppr, the old spelling of --map-by ppr"});
  // The other deprecated spellings and their MCA parameters print their blocks too (given
  // before the first program only); a second mapping block is held back by Open MPI's help
  // aggregation and counted on two "[host:PID]" lines at the end (mpirun-facts.md "deprec").
  add({.name = "deprecated-bind-to-socket",
       .args = {"--bind-to-socket", "-n", "2", "@probe"},
       .source = "mpirun(1): --bind-to-socket, the old spelling of --bind-to socket"});
  add({.name = "deprecated-cpus-per-proc-bynode",
       .args = {"--cpus-per-proc", "1", "-bynode", "-n", "2", "@probe"},
       .source = "mpirun(1): --cpus-per-proc and -bynode, two deprecated mapping forms"});
  add({.name = "deprecated-mca-and-env",
       .args = {"--mca", "hwloc_base_bind_to_core", "1", "-n", "1", "@probe"},
       .env = {"OMPI_MCA_rmaps_base_byslot=1"},
       .source = "mpirun(1): the deprecated forms' MCA parameters, on the command line and in "
                 "the environment"});
  add({.name = "deprecated-mca-zero",
       .args = {"--bind-to-core", "--mca", "hwloc_base_bind_to_core", "0", "-n", "1", "@probe"},
       .checks = Stdout | Stderr,
       .source = "mpirun 4.1.4: --mca hwloc_base_bind_to_core 0 after --bind-to-core, no block"});
  add({.name = "deprecated-later-context",
       .args = {"-n", "1", "@probe", ":", "--bind-to-core", "-n", "1", "@probe"},
       .checks = Stdout | Stderr,
       .source = "mpirun(1): MPMD, a later context's --bind-to-core prints no block"});
  add({.name = "deprecated-appfile",
       .args = {"--bind-to-socket", "--app", "@W/apps"},
       .checks = Stdout | Stderr,
       .files = {{"apps", "-n 1 --bynode @probe\n-n 1 @probe\n"}},
       .source = "mpirun(1): --app, the command line's deprecated form only"});
  add({.name = "ppr-core",
       .args = {"-ppr", "1:core", "@probe"},
       .checks = Report | Stdout,
       .source = "mpirun(1): -ppr 1:core"});
  add({.name = "ppr-and-map-by",
       .args = {"--ppr", "1:node", "--map-by", "core", "@probe"},
       .checks = kRefusal,
       .source = "mpirun 4.1.4: --ppr with --map-by exits 1"});
  add({.name = "prefix-slashes-only",
       .args = {"--prefix", "/", "-n", "1", "@probe"},
       .checks = kRefusal,
       .source = "mpirun(1): --prefix <dir> (a prefix of slashes only)"});
  add({.name = "bind-to-none",
       .args = {"--bind-to", "none", "-n", "2", "@probe"},
       .source = "Horovod, T9k MPIJob: -bind-to none"});
  add({.name = "bind-to-core",
       .args = {"--bind-to", "core", "-n", "2", "@probe"},
       .source = "mpirun(1): --bind-to core"});
  add({.name = "map-by-core",
       .args = {"--map-by", "core", "-n", "2", "@probe"},
       .source = "mpirun(1): --map-by core"});
  add({.name = "map-by-ppr",
       .args = {"--map-by", "ppr:1:core", "@probe"},
       .source = "mpirun(1): --map-by ppr:N:<object>"});
  add({.name = "rank-exit-code",
       .args = {"-n", "2", "@probe"},
       .checks = Report | Framed,
       .env = {"PROBE_EXIT_RANK=1", "PROBE_EXIT_CODE=3"},
       .source = "mpirun(1) EXIT STATUS: the first non-zero exit code of a rank"});
  // orte_abort_on_non_zero_status false (issue 20's area: mpirun's MCA parameters steer
  // mpilaunch as they steer mpirun): mpirun 4.1.4 lets the other ranks run on and exits 0,
  // printing nothing; mpilaunch prints one warning line naming the rank (not with -q), so
  // stderr is compared only under -q.
  add({.name = "abort-on-nonzero-off-mca",
       .args = {"--mca", "orte_abort_on_non_zero_status", "0", "-n", "2", "@probe"},
       .checks = Report | Stdout,
       .env = {"PROBE_EXIT_RANK=1", "PROBE_EXIT_CODE=3",
               "PROBE_ENV=OMPI_MCA_orte_abort_on_non_zero_status"},
       .source = "mpirun 4.1.4: --mca orte_abort_on_non_zero_status 0 and a rank exiting 3"});
  add({.name = "abort-on-nonzero-off-quiet",
       .args = {"-q", "--mca", "orte_abort_on_non_zero_status", "no", "-n", "2", "@probe"},
       .env = {"PROBE_EXIT_RANK=0", "PROBE_EXIT_CODE=5"},
       .source = "mpirun 4.1.4: -q --mca orte_abort_on_non_zero_status no, rank 0 exiting 5"});
  add({.name = "abort-on-nonzero-off-env",
       .args = {"-n", "2", "@probe"},
       .checks = Report | Stdout,
       .env = {"OMPI_MCA_orte_abort_on_non_zero_status=false", "PROBE_EXIT_RANK=1",
               "PROBE_EXIT_CODE=3", "PROBE_ENV=OMPI_MCA_orte_abort_on_non_zero_status"},
       .source = "mpirun 4.1.4: OMPI_MCA_orte_abort_on_non_zero_status=false"});
  add({.name = "abort-on-nonzero-off-param-file",
       .args = {"-n", "2", "@probe"},
       .checks = Report | Stdout,
       .env = {"HOME=@W", "PROBE_EXIT_RANK=1", "PROBE_EXIT_CODE=3",
               "PROBE_ENV=OMPI_MCA_orte_abort_on_non_zero_status"},
       .files = {{".openmpi/mca-params.conf", "orte_abort_on_non_zero_status = 0\n"}},
       .source = "mpirun 4.1.4: orte_abort_on_non_zero_status = 0 in ~/.openmpi/mca-params.conf"});
  add({.name = "abort-on-nonzero-on",
       .args = {"--mca", "orte_abort_on_non_zero_status", "yes", "-n", "2", "@probe"},
       .checks = Report | Framed,
       .env = {"PROBE_EXIT_RANK=1", "PROBE_EXIT_CODE=3"},
       .source = "mpirun 4.1.4: --mca orte_abort_on_non_zero_status yes (the default)"});
  add({.name = "program-not-found",
       .args = {"-n", "2", "./no-such-program"},
       .checks = kRefusal,
       .source = "mpirun(1): a program that cannot be run"});
  add({.name = "unknown-option",
       .args = {"--no-such-option", "-n", "2", "@probe"},
       .checks = kRefusal,
       .source = "an option mpirun does not know"});

  add({.name = "mca-to-environment",
       .args = {"--mca", "mpi_yield_when_idle", "1", "-n", "1", "@probe"},
       .source = "mpirun(1): --mca reaches the ranks as OMPI_MCA_<name>"});
  add({.name = "mca-env-binding-policy",
       .args = {"-n", "2", "@probe"},
       .env = {"OMPI_MCA_hwloc_base_binding_policy=none"},
       .source = "issue 20 item 6: OMPI_MCA_hwloc_base_binding_policy in the environment"});
  add({.name = "per-node-N",
       .args = {"-N", "1", "@probe"},
       .source = "Kubeflow MPI Operator: -N <n>"});
  add({.name = "pernode", .args = {"-pernode", "@probe"}, .source = "mpirun(1): -pernode"});
  add({.name = "npernode",
       .args = {"-npernode", "2", "@probe"},
       .source = "mpirun(1): -npernode <n>"});
  add({.name = "t9k-recovery",
       .args = {"-n", "2", "--enable-recovery", "--max-restarts", "100", "--allow-run-as-root",
                "-bind-to", "none", "@probe"},
       .source = "T9k MPIJob: -N 3 --enable-recovery --max-restarts 100 --allow-run-as-root "
                 "-bind-to none"});
  // Whole command lines of the projects issue 20 names, with the probe as their program (the
  // options as those projects' launch scripts and docs write them).
  add({.name = "horovod-runner",
       .args = {"--allow-run-as-root",
                "--tag-output",
                "-np",
                "2",
                "-H",
                "localhost:2",
                "-bind-to",
                "none",
                "-map-by",
                "slot",
                "-mca",
                "pml",
                "ob1",
                "-mca",
                "btl",
                "^openib",
                "-x",
                "NCCL_DEBUG=INFO",
                "-x",
                "LD_LIBRARY_PATH",
                "-x",
                "PATH",
                "@probe",
                "train.py"},
       .env = {"PROBE_ENV=NCCL_DEBUG,OMPI_MCA_pml,OMPI_MCA_btl", "LD_LIBRARY_PATH=/opt/lib"},
       .source = "Horovod's horovodrun (Open MPI): its mpirun command line"});
  add({.name = "deepspeed-openmpi",
       .args = {"-n", "2", "-hostfile", "hf", "--mca", "btl", "^openib", "--mca",
                "btl_tcp_if_include", "lo", "-x", "UCX_TLS=tcp", "-x", "PYTHONPATH=/opt/ds",
                "@probe", "-u", "train.py"},
       .env = {"PROBE_ENV=UCX_TLS,PYTHONPATH,OMPI_MCA_btl_tcp_if_include"},
       .files = {{"hf", "localhost slots=2\n"}},
       .source = "DeepSpeed's OpenMPIRunner: its mpirun command line"});
  add({.name = "lammps-in",
       .args = {"-np", "2", "@probe", "-in", "in.lj"},
       .files = {{"in.lj", "units lj\n"}},
       .source = "LAMMPS docs: mpirun -np 4 lmp_mpi -in in.lj"});
  add({.name = "qe-stdin",
       .args = {"-np", "2", "@probe", "-nk", "1"},
       .stdin_text = "&control\n calculation='scf'\n/\n",
       .source = "Quantum ESPRESSO docs: mpirun -np 4 pw.x -nk 2 < pw.in",
       .mpirun_may_crash = true});
  add({.name = "openfoam-parallel",
       .args = {"--oversubscribe", "-np", "3", "@probe", "-parallel"},
       .source = "OpenFOAM user guide: mpirun --oversubscribe -np 4 simpleFoam -parallel"});
  add({.name = "gromacs-mdrun",
       .args = {"-np", "2", "--bind-to", "core", "-x", "OMP_NUM_THREADS=1", "@probe", "mdrun",
                "-ntomp", "1", "-deffnm", "md"},
       .env = {"PROBE_ENV=OMP_NUM_THREADS"},
       .source = "GROMACS docs: mpirun -np 4 gmx_mpi mdrun -ntomp 1"});
  add({.name = "hpl-ppr-core",
       .args = {"--map-by", "ppr:1:core", "--bind-to", "core", "-np", "2", "@probe"},
       .source = "HPL job scripts: mpirun --map-by ppr:1:core --bind-to core -np N ./xhpl"});
  add({.name = "hpl-socket-threads",
       .args = {"-np", "1", "--map-by", "socket", "--bind-to", "socket", "-x", "OMP_NUM_THREADS=2",
                "@probe"},
       .env = {"PROBE_ENV=OMP_NUM_THREADS"},
       .source =
           "HPL hybrid runs: mpirun -np N --map-by socket --bind-to socket -x OMP_NUM_THREADS"});
  add({.name = "timeout",
       .args = {"--timeout", "120", "-n", "2", "@probe"},
       .source = "mpirun(1): --timeout <seconds>"});
  add({.name = "wd-alias",
       .args = {"-wd", "sub", "-n", "1", "@probe"},
       .files = {{"sub/keep", ""}},
       .source = "mpirun(1): -wd, a synonym of -wdir"});
  add({.name = "verbose",
       .args = {"-v", "-n", "1", "@probe"},
       .source = "mpirun(1): -v, --verbose"});
  add({.name = "noprefix",
       .args = {"--noprefix", "-n", "1", "@probe"},
       .source = "mpirun(1): --noprefix"});
  add({.name = "show-progress",
       .args = {"--show-progress", "-n", "1", "@probe"},
       .source = "mpirun(1): --show-progress"});
  // The name a program is executed by, as a script sees it in $0 (mpirun 4.1.4, measured):
  // as given with '/', ./D/NAME when found in a relative --path or PATH directory D.
  const std::string dollar0 = "#!/bin/sh\nexec @probe \"$0\" \"$@\"\n";
  add({.name = "script-dollar0",
       .args = {"-n", "1", "./s0", ":", "-n", "1", "sub/s0"},
       .files = {{"s0", dollar0}, {"sub/s0", dollar0}},
       .source = "job scripts: mpirun -n 2 ./run.sh (the script's $0)"});
  add({.name = "script-dollar0-wdir",
       .args = {"--wdir", "sub", "-n", "1", "./s0"},
       .files = {{"sub/s0", dollar0}},
       .source = "mpirun(1): --wdir with a script (its $0)"});
  add({.name = "path-dollar0",
       .args = {"--oversubscribe", "-n", "1", "--path", "pbin", "s0", ":", "-n", "1", "--path",
                "./pbin/", "s0", ":", "-n", "1", "--path", "@W/pbin", "s0"},
       .files = {{"pbin/s0", dollar0}},
       .source = "mpirun(1): --path <path> with a relative and an absolute directory ($0)"});
  add({.name = "path-env-relative-dollar0",
       .args = {"-n", "1", "s0", ":", "-n", "1", "s1"},
       .env = {"PATH=rel:/usr/bin:/bin"},
       .files = {{"rel/s0", dollar0}, {"s1", dollar0}},
       .source = "mpirun(1): a program found in a relative PATH entry, or in the wdir ($0)"});
  add({.name = "oversubscribe-one-slot",
       .args = {"-H", "localhost:1", "-n", "2", "--oversubscribe", "@probe"},
       .source = "mpirun(1): --oversubscribe past a host's slots"});
  add({.name = "program-on-path",
       .args = {"-n", "2", "probe"},
       .env = {"PATH=@apps:/usr/bin:/bin"},
       .source = "mpirun(1): the program is looked up in PATH"});
  add({.name = "stdin-explicit-0",
       .args = {"--stdin", "0", "-n", "2", "@probe"},
       .stdin_text = "line one\nline two\n",
       .source = "mpirun(1): --stdin 0",
       .mpirun_may_crash = true});
  add({.name = "tag-output-to-files",
       .args = {"--tag-output", "--output-filename", "of", "-n", "2", "@probe"},
       .checks = kAll | Files,
       .source = "mpirun(1): --output-filename with --tag-output (tagged lines in the files)"});

  add({.name = "mpmd-per-context",
       .args = {"-n", "1", "--wdir", "sub", "-x", "PROBE_FOO=one", "@probe", ":", "-n", "1", "-x",
                "PROBE_FOO=two", "@probe"},
       .env = {"PROBE_ENV=PROBE_FOO,PWD"},
       .files = {{"sub/keep", ""}},
       .source = "issue 20 item 2: per-context -n, -x, --wdir (and PWD)"});
  add({.name = "npersocket-single-dash",
       .args = {"-npersocket", "1", "@probe"},
       .source = "issue 20 item 9: -npersocket is not -n persocket"});
  // ppr:N:socket without -n: N per socket on every node (mpirun 4.1.4, measured).
  add({.name = "npersocket-2-no-np",
       .args = {"--npersocket", "2", "--report-bindings", "@probe"},
       .source = "mpirun(1): --npersocket without -np"});
  add({.name = "map-by-ppr-socket-no-np",
       .args = {"--map-by", "ppr:1:socket", "--report-bindings", "@probe"},
       .source = "mpirun(1): --map-by ppr:N:socket without -np"});
  add({.name = "npersocket-oversubscribe-no-np",
       .args = {"--npersocket", "3", "--oversubscribe", "@probe"},
       .source = "mpirun(1): --npersocket beyond the slots with --oversubscribe"});
  add({.name = "npersocket-too-many-no-np",
       .args = {"--npersocket", "3", "@probe"},
       .checks = kRefusal,
       .source = "mpirun(1): --npersocket beyond the slots"});
  add({.name = "npersocket-host-slots-no-np",
       .args = {"-H", "localhost:4", "--npersocket", "3", "@probe"},
       .source = "mpirun(1): --npersocket within -H's slots"});
  add({.name = "npersocket-with-n",
       .args = {"-npersocket", "1", "-n", "1", "@probe"},
       .source = "issue 21: --npersocket N is ppr:N:socket"});
  add({.name = "cpu-list",
       .args = {"--cpu-list", "0", "-n", "2", "@probe"},
       .env = {"PROBE_ENV=OMPI_MCA_hwloc_base_cpu_list,OMPI_MCA_hwloc_base_cpu_set"},
       .source =
           "issue 21: --cpu-list binds every rank to the list, passed on as hwloc_base_cpu_list"});
  // mpirun 4.1.4 keeps the ranks on the list (affinity, PMIX_CPUSET, locality) without
  // OMPI_MCA_orte_bound_at_launch; --report-bindings lines come from mpirun ("not bound").
  add({.name = "cpu-list-bind-none",
       .args = {"--bind-to", "none", "--cpu-list", "1", "-n", "2", "--report-bindings", "@probe"},
       .env = {"PROBE_ENV=OMPI_MCA_hwloc_base_cpu_list,OMPI_MCA_hwloc_base_report_bindings"},
       .source = "issue 21: --bind-to none with --cpu-list keeps the ranks on the list"});
  add({.name = "cpu-set-bind-none-oversubscribed",
       .args = {"-n", "3", "--oversubscribe", "--cpu-set", "0", "--bind-to", "none", "@probe"},
       .env = {"PROBE_ENV=OMPI_MCA_hwloc_base_cpu_set"},
       .source = "issue 21: --bind-to none with --cpu-set, oversubscribed"});
  add({.name = "cpu-set-single-dash",
       .args = {"-cpu-set", "0", "-n", "2", "@probe"},
       .env = {"PROBE_ENV=OMPI_MCA_hwloc_base_cpu_list,OMPI_MCA_hwloc_base_cpu_set"},
       .source = "issue 21: -cpu-set is --cpu-list under mpirun's older parameter name"});
  // mpirun 4.1.4 passes its ranks the MCA parameters of its options (their Open MPI reads them:
  // spawned children, MPI_T); nothing without them.
  const std::string policy_env =
      "PROBE_ENV=OMPI_MCA_hwloc_base_binding_policy,OMPI_MCA_rmaps_base_mapping_policy,"
      "OMPI_MCA_rmaps_base_ranking_policy,OMPI_MCA_hwloc_base_report_bindings,"
      "OMPI_MCA_rmaps_base_oversubscribe,OMPI_MCA_rmaps_ppr_n_pernode,"
      "OMPI_MCA_hwloc_base_use_hwthreads_as_cpus,OMPI_MCA_orte_tag_output,"
      "OMPI_MCA_orte_execute_quiet,OMPI_MCA_rmaps_base_no_schedule_local";
  add({.name = "policy-env-default",
       .args = {"-n", "2", "@probe"},
       .env = {policy_env},
       .source = "issue 20: no mapping/binding parameter in the ranks by default"});
  add({.name = "policy-env-bind-to-core",
       .args = {"--bind-to", "core", "-n", "2", "@probe"},
       .env = {policy_env},
       .source = "issue 20: --bind-to core reaches the ranks as hwloc_base_binding_policy"});
  add({.name = "policy-env-map-rank-bind",
       .args = {"--map-by", "socket", "--rank-by", "core", "--bind-to", "socket", "-n", "2",
                "@probe"},
       .env = {policy_env},
       .source = "mpirun(1): --map-by socket --rank-by core --bind-to socket, passed on"});
  add({.name = "policy-env-single-dash",
       .args = {"-bind-to", "none", "-map-by", "node", "-n", "2", "@probe"},
       .env = {policy_env},
       .source = "issue 20: -bind-to none -map-by node, passed on as given"});
  add({.name = "policy-env-mca-loses",
       .args = {"--bind-to", "core", "--mca", "hwloc_base_binding_policy", "none", "-n", "2",
                "@probe"},
       .env = {policy_env},
       .source = "mpirun 4.1.4: --bind-to wins over --mca hwloc_base_binding_policy"});
  add({.name = "policy-env-last-wins",
       .args = {"--bind-to", "core", "--bind-to", "none", "-n", "2", "@probe"},
       .env = {policy_env},
       .source = "mpirun 4.1.4: the last --bind-to counts"});
  add({.name = "policy-env-flags",
       .args = {"-N", "1", "--use-hwthread-cpus", "--oversubscribe", "--tag-output", "-q",
                "@probe"},
       .env = {policy_env},
       .source = "mpirun(1): -N, --use-hwthread-cpus, --oversubscribe, --tag-output, -q"});
  add({.name = "report-bindings-unbound",
       .args = {"--report-bindings", "--bind-to", "none", "-n", "2", "@probe"},
       .env = {policy_env},
       .source = "mpirun(1): --report-bindings of unbound ranks (their own line)"});
  add({.name = "index-argv-by-rank",
       .args = {"--index-argv-by-rank", "-n", "2", "@probe", "in.dat"},
       .source = "mpirun(1): --index-argv-by-rank (argv[0] becomes argv[0]-RANK)"});
  add({.name = "index-argv-by-rank-mpmd",
       .args = {"-index-argv-by-rank", "-n", "1", "@probe", ":", "-n", "1", "@probe", "x"},
       .env = {"PROBE_ENV=OMPI_COMMAND,OMPI_ARGV"},
       .source = "mpirun 4.1.4: --index-argv-by-rank numbers ranks across MPMD contexts"});
  add({.name = "map-by-slot",
       .args = {"--map-by", "slot", "-np", "2", "@probe"},
       .source = "mpirun(1): --map-by slot"});

  add({.name = "mpi-abort",
       .args = {"-n", "2", "@probe"},
       .checks = Report,
       .env = {"PROBE_ABORT_RANK=1", "PROBE_ABORT_CODE=7"},
       // Not Framed: mpirun 4.1.4 sometimes loses its own MPI_ABORT banner ("ORTE_ERROR_LOG:
       // Data unpack would read past end of buffer in file ../orte/util/show_help.c").
       .source = "mpirun(1): MPI_Abort's error code is mpirun's exit status"});
  add({.name = "rank-killed",
       .args = {"-n", "2", "@probe"},
       .checks = Report | Framed,
       .env = {"PROBE_SIGNAL_RANK=1", "PROBE_SIGNAL=9"},
       .source = "a rank killed by SIGKILL (the OOM killer)"});
  add({.name = "mca-env-tag-output",
       .args = {"-n", "2", "@probe"},
       .env = {"OMPI_MCA_orte_tag_output=1"},
       .source = "issue 20 item 6: OMPI_MCA_orte_tag_output=1 in the environment"});
  add({.name = "mca-env-timestamp-output",
       .args = {"-n", "1", "@probe"},
       .env = {"OMPI_MCA_orte_timestamp_output=1"},
       .source = "issue 20 item 6: OMPI_MCA_orte_timestamp_output=1 in the environment"});
  add({.name = "mca-tag-output",
       .args = {"--mca", "orte_tag_output", "1", "-n", "2", "@probe"},
       .source = "--mca orte_tag_output 1 tags as --tag-output does"});
  add({.name = "mca-tag-output-0-wins-over-option",
       .args = {"--mca", "orte_tag_output", "0", "--tag-output", "-n", "2", "@probe"},
       .source = "measured: a --mca of the parameter wins over its option"});
  add({.name = "mca-env-tag-output-0-option-wins",
       .args = {"--tag-output", "-n", "2", "@probe"},
       .env = {"OMPI_MCA_orte_tag_output=0"},
       .source = "measured: the option wins over the environment's parameter"});
  add({.name = "tune-tag-output",
       .args = {"--tune", "t.conf", "-n", "2", "@probe"},
       .files = {{"t.conf", "--mca orte_tag_output 1\n"}},
       .source = "a --tune file's orte_tag_output steers mpirun's output"});
  add({.name = "mca-param-files-one-file",
       .args = {"--mca", "mca_param_files", "@W/p.conf", "-n", "2", "@probe"},
       .files = {{"p.conf", "orte_tag_output = 1\n"}},
       .source = "measured: a file named by mca_param_files steers mpirun"});
  add({.name = "mca-env-param-files-two-files",
       .args = {"-n", "2", "@probe"},
       .env = {"OMPI_MCA_mca_param_files=@W/p.conf:@W/q.conf"},
       .files = {{"p.conf", "orte_tag_output = 1\n"}, {"q.conf", "orte_timestamp_output = 1\n"}},
       .source = "measured: mpirun 4.1.4 applies nothing from a list of two files"});
  add({.name = "mca-redirect-stderr-to-stdout",
       .args = {"--mca", "iof_base_redirect_app_stderr_to_stdout", "1", "-n", "2", "@probe"},
       .source = "measured: the ranks' stderr is their stdout (fd 2 is fd 1's pty)"});
  add({.name = "mca-env-redirect-stderr-tagged",
       .args = {"--tag-output", "-n", "2", "@probe"},
       .env = {"OMPI_MCA_iof_base_redirect_app_stderr_to_stdout=1"},
       .source = "measured: merged at the source, stderr lines tagged <stdout>"});
  add({.name = "hostfile-comments",
       .args = {"--hostfile", "hf", "-n", "2", "@probe"},
       .files = {{"hf", "# the nodes\nlocalhost slots=2 # both cores\n\n"}},
       .source = "mpirun(1): hostfile comments"});
  add({.name = "hostfile-max-slots",
       .args = {"--hostfile", "hf", "-n", "2", "@probe"},
       .checks = kRefusal,
       .files = {{"hf", "localhost slots=1 max_slots=2\n"}},
       .source = "mpirun(1): max_slots does not add slots"});
  add({.name = "hostfile-max-slots-oversubscribe",
       .args = {"--hostfile", "hf", "-n", "3", "--oversubscribe", "@probe"},
       .files = {{"hf", "localhost slots=1 max_slots=2\n"}},
       .source = "mpirun(1): max_slots with --oversubscribe (4.1.4 runs past it)"});
  add({.name = "host-repeated",
       .args = {"-H", "localhost,localhost", "-n", "2", "@probe"},
       .source = "mpirun(1): a host named twice has two slots"});

  add({.name = "report-bindings",
       .args = {"--report-bindings", "-n", "2", "@probe"},
       .source =
           "mpirun(1): --report-bindings (MCW rank N bound to socket 0[core N[hwt 0]]: ...)"});
  add({.name = "output-filename-absolute",
       .args = {"--output-filename", "@W/abs", "-n", "1", "@probe"},
       .checks = kAll | Files,
       .source = "mpirun(1): --output-filename with an absolute path"});

  add({.name = "rankfile",
       .args = {"-rf", "rf", "-n", "2", "--report-bindings", "@probe"},
       .files = {{"rf", "rank 0=localhost slot=1\nrank 1=localhost slot=0\n"}},
       .source = "mpirun(1): -rf, rank N=host slot=C"});
  add({.name = "rankfile-socket-range",
       .args = {"--rankfile", "rf", "--report-bindings", "@probe"},
       .files = {{"rf", "rank 0=localhost slot=0:1\nrank 1=localhost slot=0-1\n"}},
       .source = "mpirun(1): rankfile slot=S:C and ranges; without -n a rank per line"});
  add({.name = "rankfile-shared-slot",
       .args = {"-rf", "rf", "-n", "2", "@probe"},
       .files = {{"rf", "rank 0=localhost slot=0\nrank 1=localhost slot=0\n"}},
       .source = "mpirun 4.1.4: two ranks may share a rankfile slot"});
  add({.name = "rankfile-bind-none",
       .args = {"-rf", "rf", "--bind-to", "none", "--report-bindings", "@probe"},
       .files = {{"rf", "rank 0=localhost slot=0\nrank 1=localhost slot=0-1\n"}},
       .source = "issue 21: --bind-to none with a rankfile keeps each rank on its line's CPUs"});
  add({.name = "rankfile-slots-from-lines",
       .args = {"-rf", "rf", "-n", "3", "-H", "localhost:1", "@probe"},
       .files = {{"rf",
                  "rank 0=localhost slot=0\nrank 1=localhost slot=0-1\nrank 2=localhost slot=1\n"}},
       .source = "issue 21: a rankfile host has a slot per line naming it, whatever -H says"});
  add({.name = "rankfile-universe-from-lines",
       .args = {"-rf", "rf", "-n", "1", "-H", "localhost:4", "@probe"},
       .files = {{"rf", "rank 0=localhost slot=0\nrank 1=localhost slot=1\n"}},
       .source = "issue 21: MPI_UNIVERSE_SIZE of a rankfile job counts the file's lines"});
  // :PE=n overloading the cores: only --oversubscribe itself allows it (session 10).
  // --do-not-launch prints the JOB MAP with each rank's binding as computed on the node's
  // topology (mpirun 4.1.4 too on a saved one), so bigger machines can be compared on this one:
  // mapping round robin over objects, --rank-by OBJ, listing order, cores numbered across the
  // node (mpirun-facts.md "topo"). Only stdout: mpirun adds an ORTE "internal error" on stderr.
  const std::vector<std::pair<std::string, std::vector<std::string>>> kSavedMachineLines = {
      {"n2", {"-n", "2"}},
      {"n4", {"-n", "4"}},
      {"n4-bind-core", {"-n", "4", "--bind-to", "core"}},
      {"n4-bind-hwthread", {"-n", "4", "--bind-to", "hwthread"}},
      {"n6-numa-rank-core", {"-n", "6", "--map-by", "numa", "--rank-by", "core"}},
      {"n6-numa-rank-socket", {"-n", "6", "--map-by", "numa", "--rank-by", "socket"}},
      {"n4-ppr2socket-rank-socket", {"-n", "4", "--map-by", "ppr:2:socket", "--rank-by", "socket"}},
      {"n3-rank-hwthread", {"-n", "3", "--rank-by", "hwthread"}},
      {"n4-core-rank-socket", {"-n", "4", "--map-by", "core", "--rank-by", "socket"}},
      // :SPAN: each object's share placed together, numbered round the objects, then moved to
      // object j % objects (session 12): rank 2 on socket 1 (mpilaunch had it on socket 0).
      {"n3-socket-span", {"-n", "3", "--map-by", "socket:SPAN"}},
      {"n4-socket-span-bind-core", {"-n", "4", "--map-by", "socket:SPAN", "--bind-to", "core"}},
      // Unbound, the JOB MAP still lists the processes in mapping order (session 12: 0 2 1 3;
      // mpilaunch listed them by rank).
      {"n4-socket-rank-core-bind-none",
       {"-n", "4", "--map-by", "socket", "--rank-by", "core", "--bind-to", "none"}},
      {"n3-socket-span-bind-none", {"-n", "3", "--map-by", "socket:SPAN", "--bind-to", "none"}},
  };
  // Two NUMA-heavy lines only where the cgroup's 4 cores hold them (there mpirun refuses).
  const std::vector<std::pair<std::string, std::vector<std::string>>> kBigMachineLines = {
      {"n4-socket-pe2", {"-n", "4", "--map-by", "socket:PE=2"}},
      {"n8-socket-bind-core-rank-core",
       {"-n", "8", "--map-by", "socket", "--bind-to", "core", "--rank-by", "core"}},
      {"n2-cpus-per-proc-2", {"-n", "2", "--cpus-per-proc", "2"}},
      {"n6-socket-span", {"-n", "6", "--map-by", "socket:SPAN"}},
      {"n6-numa-span-bind-core", {"-n", "6", "--map-by", "numa:SPAN", "--bind-to", "core"}},
      {"n6-socket-span-rank-numa", {"-n", "6", "--map-by", "socket:SPAN", "--rank-by", "numa"}},
      {"n6-socket-span-bind-hwthread",
       {"-n", "6", "--map-by", "socket:SPAN", "--bind-to", "hwthread"}},
  };
  for (const std::string machine :
       {"2pack-8core-ht", "2pack-4numa-4core", "2pack-8core-ht-cgroup"}) {
    auto lines = kSavedMachineLines;
    if (!machine.ends_with("cgroup"))
      lines.insert(lines.end(), kBigMachineLines.begin(), kBigMachineLines.end());
    for (const auto& [name, words] : lines) {
      std::vector<std::string> args = {"--do-not-launch", "-H", "localhost:16"};
      args.insert(args.end(), words.begin(), words.end());
      args.push_back("@probe");
      add({.name = "xml-map-" + machine.substr(6) + "-" + name,
           .args = args,
           .checks = Stdout | StdoutOrder,
           .env = {"HWLOC_XMLFILE=@data/topologies/" + machine + ".xml"},
           .source = "mpirun 4.1.4: --do-not-launch on a saved topology"});
    }
  }
  add({.name = "xml-map-8core-ht-oversubscribed-rank-core",
       .args = {"--do-not-launch", "--display-map", "-H", "localhost:2", "-n", "4",
                "--oversubscribe", "--map-by", "socket", "--rank-by", "core", "@probe"},
       .checks = Stdout | StdoutOrder,
       .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
       .source = "mpirun 4.1.4: an oversubscribed job's JOB MAP lists in mapping order"});
  add({.name = "xml-map-8core-ht-diffable",
       .args = {"--do-not-launch", "--display-diffable-map", "-H", "localhost:16", "-n", "4",
                "--map-by", "socket", "--rank-by", "core", "@probe"},
       .checks = Stdout | StdoutOrder,
       .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
       .source = "mpirun 4.1.4: --do-not-launch --display-diffable-map on a saved topology"});
  // A saved topology (HWLOC_XMLFILE) is not this machine's: mpirun 4.1.4 binds nothing, and
  // refuses an explicit --bind-to ("at least one node does NOT support binding processes to
  // cpus"). mpilaunch bound to the file's CPUs and failed with EINVAL ("a spawn was refused").
  // The unbound ranks still get OMPI_MCA_orte_bound_at_launch=1 (mpilaunch gave none until
  // session 12).
  add({.name = "xml-topology-default-unbound",
       .args = {"-H", "localhost:16", "-n", "4", "@probe"},
       .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
       .source = "mpirun 4.1.4: a saved topology's default binding is dropped"});
  add({.name = "xml-topology-map-by-socket-pe-unbound",
       .args = {"-H", "localhost:16", "-n", "2", "--map-by", "socket:PE=2", "@probe"},
       .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
       .source = "mpirun 4.1.4: a saved topology's implied binding is dropped"});
  add({.name = "xml-topology-report-bindings",
       .args = {"-H", "localhost:16", "-n", "2", "--report-bindings", "@probe"},
       .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
       .source = "mpirun 4.1.4: each rank says \"not bound\" itself on a saved topology"});
  add({.name = "xml-topology-oversubscribed-unbound",
       .args = {"-H", "localhost:2", "-n", "4", "--oversubscribe", "--report-bindings", "@probe"},
       .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
       .source = "mpirun 4.1.4: an oversubscribed job on a saved topology is not told bound"});
  // One rank: its core's CPUs (0-1) exist here, so the old binary ran it bound, exit 0.
  add({.name = "xml-topology-bind-to-core-refused",
       .args = {"-H", "localhost:16", "-n", "1", "--bind-to", "core", "@probe"},
       .checks = kRefusal,
       .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
       .source = "mpirun 4.1.4: no binding on a topology that is not this system"});
  add({.name = "xml-topology-bind-to-core-if-supported",
       .args = {"-H", "localhost:16", "-n", "2", "--bind-to", "core:if-supported", "@probe"},
       .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
       .source = "mpirun 4.1.4: :if-supported runs unbound on a saved topology"});
  add({.name = "map-by-pe-oversubscribe-modifier-overload",
       .args = {"-H", "localhost:4", "-n", "2", "--map-by", "slot:PE=2:OVERSUBSCRIBE", "@probe"},
       .checks = kRefusal,
       .source = "mpirun 4.1.4: :OVERSUBSCRIBE does not let PE=2 overload the cores"});
  add({.name = "rankfile-missing-rank",
       .args = {"-rf", "rf", "-n", "3", "@probe"},
       .checks = kRefusal,
       .files = {{"rf", "rank 0=localhost slot=1\nrank 1=localhost slot=0\n"}},
       .source = "mpirun 4.1.4: every rank needs a rankfile line"});
  add({.name = "rankfile-missing-cpu",
       .args = {"-rf", "rf", "-n", "1", "@probe"},
       .checks = ExitNonzero,  // mpirun 4.1.4 exits 1 without a word
       .files = {{"rf", "rank 0=localhost slot=5\n"}},
       .source = "issue 21: a rankfile CPU the node lacks is an error before any rank starts"});

  // mpi4py.futures (Debian's python3-mpi4py): MPIPoolExecutor spawns its workers
  // (MPI_Comm_spawn of `python3 -m mpi4py.futures.server`, info soft=1:N), or, under
  // `python3 -m mpi4py.futures`, uses the job's other ranks (static mode). Each worker reports
  // its world's size, whether it was spawned and the universe size; the set of what they said
  // is printed, so the output does not depend on which worker took which task.
  const std::map<std::string, std::string> pool = {{"pool.py", kMpi4pyPool}};
  // mpirun 4.1.4 indexes the job's argv[0] only: spawned children keep theirs.
  add({.name = "index-argv-by-rank-spawn",
       .args = {"--oversubscribe", "--index-argv-by-rank", "-n", "1", "/usr/bin/python3",
                "argv_spawn.py"},
       .checks = Files,
       .files = {{"argv_spawn.py", kArgvSpawn}},
       .source = "mpirun(1): --index-argv-by-rank, with MPI_Comm_spawn"});
  add({.name = "mpi4py-futures-spawn",
       .args = {"-H", "localhost:3", "-n", "1", "/usr/bin/python3", "pool.py", "2"},
       .checks = Stdout | Stderr,
       .files = pool,
       .source = "mpi4py docs: MPIPoolExecutor(max_workers=2) spawns 2 workers"});
  add({.name = "mpi4py-futures-spawn-universe",
       .args = {"-H", "localhost:3", "-n", "1", "/usr/bin/python3", "pool.py"},
       .checks = Stdout | Stderr,
       .files = pool,
       .source = "mpi4py docs: MPIPoolExecutor() spawns MPI_UNIVERSE_SIZE - 1 workers"});
  add({.name = "mpi4py-futures-spawn-oversubscribe",
       .args = {"--oversubscribe", "-n", "1", "/usr/bin/python3", "pool.py", "3", "2"},
       .checks = Stdout | Stderr,
       .files = pool,
       .source = "mpi4py docs: a pool per task batch, more workers than cores"});
  add({.name = "mpi4py-futures-spawn-localhost",
       .args = {"--oversubscribe", "-n", "1", "/usr/bin/python3", "pool.py", "1", "1", "localhost"},
       .checks = Stdout | Stderr,
       .files = pool,
       .source = "mpi4py docs: MPIPoolExecutor(mpi_info={'host': 'localhost'})"});
  add({.name = "mpi4py-futures-static",
       .args = {"-H", "localhost:3", "-n", "3", "/usr/bin/python3", "-m", "mpi4py.futures",
                "pool.py"},
       .checks = Stdout | Stderr,
       .files = pool,
       .source = "mpi4py docs: mpiexec -n N python -m mpi4py.futures script.py"});
  add({.name = "mpi4py-futures-static-one",
       .args = {"-n", "1", "/usr/bin/python3", "-m", "mpi4py.futures", "pool.py"},
       .checks = Stdout | Stderr,
       .files = pool,
       .source = "mpi4py docs: python -m mpi4py.futures with one process"});

  // ---- virtual nodes node1 and node2 ----
  auto vnode = [&](Case c) {
    c.nodes = Nodes::Virtual;
    t.push_back(std::move(c));
  };
  vnode({.name = "vn-4",
         .args = {"-H", "node1:2,node2:2", "-n", "4", "@probe"},
         .source = "mpirun(1): mpirun -H aa,bb -np 4 ./a.out"});
  vnode({.name = "vn-fill-first",
         .args = {"-H", "node1:2,node2:2", "-n", "2", "@probe"},
         .source = "mpirun(1): by slot, the first node fills first"});
  vnode({.name = "vn-map-by-node",
         .args = {"-H", "node1:2,node2:2", "--map-by", "node", "-n", "4", "@probe"},
         .source = "mpirun(1): --map-by node"});
  // :SPAN over several nodes divides the processes evenly over every node's objects, whatever
  // each node's slots (mpirun 4.1.4's byobj_span, session 12): one socket per virtual node, so
  // -n 2 puts a rank on each (mpilaunch filled node1 first).
  vnode({.name = "vn-map-by-socket-span",
         .args = {"-H", "node1:2,node2:2", "--map-by", "socket:SPAN", "-n", "2", "@probe"},
         .source = "mpirun(1): --map-by socket:SPAN"});
  vnode({.name = "vn-map-by-socket-span-over-slots",
         .args = {"-H", "node1:1,node2:3", "--map-by", "socket:SPAN", "-n", "4", "@probe"},
         // mpirun gives node1's two ranks on its one slot OMPI_MCA_mpi_oversubscribe=0.
         .pending = kBinding,
         .pending_on = Report,
         .source = "mpirun 4.1.4: :SPAN gives node1 two ranks on its one slot"});
  vnode({.name = "vn-map-by-core-span-rank-node",
         .args = {"-H", "node1:2,node2:2", "--map-by", "core:SPAN", "--rank-by", "node", "-n", "3",
                  "@probe"},
         .source = "mpirun(1): --map-by core:SPAN --rank-by node"});
  // --rank-by over virtual nodes (mpirun 4.1.4, measured): by node the ranks go round the
  // nodes (a,b,a), by slot or by an object node after node, within each application context.
  vnode({.name = "vn-rank-by-node",
         .args = {"-H", "node1:2,node2:2", "--rank-by", "node", "-n", "3", "@probe"},
         .source = "mpirun(1): --rank-by node"});
  vnode({.name = "vn-rank-by-node-three",
         .args = {"-H", "node1:1,node2:2,node3:2", "--rank-by", "node", "-n", "4", "@probe"},
         .source = "mpirun(1): --rank-by node, nodes with different slots"});
  vnode({.name = "vn-rank-by-node-report-bindings",
         .args = {"-H", "node1:3,node2:1", "--rank-by", "node", "--report-bindings", "-n", "4",
                  "@probe"},
         .source = "mpirun(1): --rank-by node with --report-bindings"});
  vnode({.name = "vn-rank-by-node-N",
         .args = {"-H", "node1:2,node2:2", "-N", "2", "--rank-by", "node", "@probe"},
         .source = "mpirun(1): -N with --rank-by node"});
  vnode({.name = "vn-rank-by-node-mpmd",
         .args = {"-H", "node1:3,node2:3", "--rank-by", "node", "-n", "1", "@probe", ":", "-n", "4",
                  "@probe"},
         .source = "mpirun(1): --rank-by node with two application contexts"});
  vnode(
      {.name = "vn-rank-by-node-ppr-socket",
       .args = {"-H", "node1:2,node2:2", "--map-by", "ppr:2:socket", "--rank-by", "node", "@probe"},
       .source = "mpirun(1): --map-by ppr:N:socket without -n, --rank-by node"});
  // Every report difference is pending here (mpirun tells its remote ranks
  // OMPI_MCA_mpi_oversubscribe=0), so the placement is checked by job_map_test's table.
  vnode({.name = "vn-map-by-node-oversubscribe",
         .args = {"-H", "node1:1,node2:3", "--oversubscribe", "--map-by", "node", "-n", "5",
                  "@probe"},
         .pending = kOversubscribedRemote,
         .pending_on = Report,
         .source = "mpirun(1): --map-by node beyond the slots, --oversubscribe"});
  vnode({.name = "vn-rank-by-slot-map-by-node",
         .args = {"-H", "node1:2,node2:2", "--map-by", "node", "--rank-by", "slot", "-n", "4",
                  "@probe"},
         .source = "mpirun(1): --map-by node --rank-by slot"});
  vnode({.name = "vn-rank-by-core-map-by-node",
         .args = {"-H", "node1:2,node2:2", "--map-by", "node", "--rank-by", "core", "-n", "3",
                  "@probe"},
         .source = "mpirun(1): --map-by node --rank-by core"});
  vnode({.name = "vn-rank-by-node-mca",
         .args = {"-H", "node1:2,node2:2", "--mca", "rmaps_base_ranking_policy", "node", "-n", "3",
                  "@probe"},
         .source = "mpirun(1): the ranking policy as an MCA parameter"});
  // A rankfile or the seq mapper numbers the ranks itself: mpirun 4.1.4 ignores --rank-by then
  // (measured in session 11, by node, slot and core, with and without -H).
  vnode({.name = "vn-rank-by-node-rankfile",
         .args = {"-rf", "rf", "--rank-by", "node", "-n", "4", "--report-bindings", "@probe"},
         .files = {{"rf",
                    "rank 0=node2 slot=1\nrank 1=node1 slot=0\nrank 2=node2 slot=0\n"
                    "rank 3=node1 slot=1\n"}},
         .source = "mpirun(1): --rank-by node with a rankfile"});
  vnode({.name = "vn-rank-by-core-rankfile-hosts",
         .args = {"-H", "node1,node2,node3", "-rf", "rf", "--rank-by", "core", "-n", "3", "@probe"},
         .files = {{"rf", "rank 0=node3 slot=0\nrank 1=node1 slot=1\nrank 2=node3 slot=1\n"}},
         .source = "mpirun(1): --rank-by core with a rankfile and -H"});
  vnode({.name = "vn-rank-by-node-seq",
         .args = {"--map-by", "seq", "--hostfile", "hf", "--rank-by", "node", "-n", "5", "@probe"},
         .files = {{"hf", "node1\nnode2\nnode1\nnode1\nnode3\n"}},
         .source = "mpirun(1): --rank-by node with --map-by seq"});
  vnode({.name = "vn-rank-by-slot-seq",
         .args = {"--map-by", "seq", "-H", "node2,node1,node2", "--rank-by", "slot", "-n", "3",
                  "@probe"},
         .source = "mpirun(1): --rank-by slot with --map-by seq over -H"});
  vnode({.name = "vn-one-slot-each",
         .args = {"-H", "node1,node2", "-n", "2", "@probe"},
         .source = "mpirun(1): -H host without :N is one slot"});
  vnode({.name = "vn-npernode",
         .args = {"-H", "node1:2,node2:2", "-npernode", "1", "@probe"},
         .source = "mpirun(1): -npernode"});
  vnode({.name = "vn-N",
         .args = {"-H", "node1:2,node2:2", "-N", "1", "@probe"},
         .source = "Kubeflow MPI Operator, T9k: -N <n> per node"});
  vnode({.name = "vn-hostfile",
         .args = {"--hostfile", "hf", "-n", "4", "@probe"},
         .files = {{"hf", "node1 slots=2\nnode2 slots=2\n"}},
         .source = "mpirun(1): mpirun --hostfile myhostfile ./a.out"});
  vnode({.name = "vn-tag-output",
         .args = {"-H", "node1:1,node2:1", "--tag-output", "-n", "2", "@probe"},
         .source = "mpirun(1): --tag-output across nodes"});
  vnode({.name = "vn-stdin",
         .args = {"-H", "node1:2,node2:2", "-n", "4", "@probe"},
         .stdin_text = binary_input(100'000),
         .source = "issue 20 item 1: stdin to rank 0 across nodes",
         .mpirun_may_crash = true});
  vnode({.name = "vn-mpmd",
         .args = {"-H", "node1:2,node2:2", "-n", "2", "@probe", "a", ":", "-n", "2", "@probe", "b"},
         .source = "mpirun(1): MPMD across nodes"});
  vnode({.name = "vn-x",
         .args = {"-H", "node1:1,node2:1", "-x", "PROBE_FOO=bar", "-n", "2", "@probe"},
         .env = {"PROBE_ENV=PROBE_FOO"},
         .source = "mpirun(1): -x reaches remote nodes"});
  vnode({.name = "vn-output-filename",
         .args = {"-H", "node1:1,node2:1", "--output-filename", "of", "-n", "2", "@probe"},
         .checks = kAll | Files,
         .source = "mpirun(1): --output-filename across nodes"});
  vnode({.name = "vn-wdir",
         .args = {"-H", "node1:1,node2:1", "--wdir", "sub", "-n", "2", "@probe"},
         .files = {{"sub/keep", ""}},
         .source = "mpirun(1): -wdir on every node"});
  vnode({.name = "vn-hostfile-and-host",
         .args = {"--hostfile", "hf", "-H", "node2,node1:2", "-n", "3", "@probe"},
         .files = {{"hf", "node1 slots=1\nnode2 slots=3\n"}},
         .source = "mpirun(1): -H picking hosts out of --hostfile, with its own slots"});
  vnode({.name = "vn-hostfile-no-slots",
         .args = {"--hostfile", "hf", "-n", "4", "@probe"},
         .files = {{"hf", "node1\nnode2\n"}},
         .source = "issue 20 item 4: host file lines without slots= count each node's cores"});
  vnode({.name = "vn-hostfile-no-slots-fill",
         .args = {"--hostfile", "hf", "-n", "2", "@probe"},
         .files = {{"hf", "node1\nnode2\n"}},
         .source = "issue 20 item 4: the first node's cores fill first"});
  vnode({.name = "vn-hostfile-no-slots-all",
         .args = {"--hostfile", "hf", "@probe"},
         .files = {{"hf", "node1\nnode2 slots=1\n"}},
         .source = "issue 20 item 4: without -n, every slot (cores where slots= is missing)"});
  vnode({.name = "vn-hostfile-lines-per-slot",
         .args = {"--hostfile", "hf", "@probe"},
         .files = {{"hf", "node1\nnode1\nnode1\n"}},
         .source = "mpirun(1): a host on several lines has a slot per line"});
  vnode({.name = "vn-hostfile-no-slots-picked",
         .args = {"--hostfile", "hf", "-H", "node2", "@probe"},
         .files = {{"hf", "node1\nnode2\n"}},
         .source = "mpirun 4.1.4: -H without :N picks one slot of a line without slots="});
  vnode({.name = "vn-hostfile-subset",
         .args = {"--hostfile", "hf", "-H", "node2", "-n", "1", "@probe"},
         .files = {{"hf", "node1 slots=2\nnode2 slots=2\n"}},
         .source = "mpirun(1): --host picks hosts out of the hostfile"});
  vnode({.name = "vn-rank-exit-code",
         .args = {"-H", "node1:1,node2:1", "-n", "2", "@probe"},
         .checks = Report | Framed,
         .env = {"PROBE_EXIT_RANK=1", "PROBE_EXIT_CODE=5"},
         .source = "mpirun(1) EXIT STATUS, a rank on the second node"});
  vnode({.name = "vn-oversubscribe",
         .args = {"-H", "node1:1,node2:1", "-n", "3", "--oversubscribe", "@probe"},
         .pending = kOversubscribedRemote,
         .pending_on = Report,
         .source = "mpirun(1): --oversubscribe across nodes"});
  vnode({.name = "vn-mpi-operator",
         .args = {"--allow-run-as-root",
                  "-np",
                  "2",
                  "-bind-to",
                  "none",
                  "-map-by",
                  "slot",
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
                  "--hostfile",
                  "hostfile",
                  "@probe"},
         .env = {"LD_LIBRARY_PATH=/opt/lib"},
         .files = {{"hostfile", "node1 slots=1\nnode2 slots=1\n"}},
         .source = "Kubeflow MPI Operator: the launcher's mpirun with /etc/mpi/hostfile"});
  vnode({.name = "vn-wrf-machinefile",
         .args = {"-np", "4", "--map-by", "node", "-machinefile", "hosts", "@probe"},
         .files = {{"hosts", "node1\nnode1\nnode2\nnode2\n"}},
         .source = "WRF run scripts: mpirun -np N -machinefile hosts ./wrf.exe"});
  vnode({.name = "vn-display-diffable-map",
         .args = {"-H", "node1:2,node2:2", "--display-diffable-map", "-n", "3", "@probe"},
         .source = "mpirun(1): --display-diffable-map over several nodes"});
  // Each remote node's daemon binds its ranks after mpirun printed the map (measured, session
  // 11): the two ranks, bound to cores 0 and 1 of node1, show UNBOUND, and no locality follows.
  vnode({.name = "vn-display-diffable-map-bound",
         .args = {"-H", "node1:2,node2:2", "--display-diffable-map", "-n", "2", "@probe"},
         .source = "mpirun(1): --display-diffable-map of bound ranks on another node"});
  vnode(
      {.name = "vn-display-map",
       .args = {"-H", "node1:2,node2:2", "--display-map", "--map-by", "node", "-n", "3", "@probe"},
       // "Total slots allocated" is the universe size, mpirun's own node counted (deliberate).
       .pending = kUniverse,
       .pending_on = Report | Stdout,
       .source = "mpirun(1): --display-map over several nodes"});
  vnode({.name = "vn-display-allocation",
         .args = {"-H", "node1:2,node2:3", "--display-allocation", "-n", "2", "@probe"},
         .source = "mpirun(1): --display-allocation, a host without ranks listed too"});
  vnode({.name = "vn-display-allocation-hostfile",
         .args = {"--hostfile", "hf", "-display-devel-allocation", "-n", "2", "@probe"},
         .files = {{"hf", "node1\nnode2 slots=4 max_slots=6\n"}},
         .source = "mpirun(1): --display-devel-allocation, slots counted on the node"});
  vnode({.name = "vn-nolocal",
         .args = {"-H", "localhost:1,node1:2", "--nolocal", "--display-allocation", "-n", "2",
                  "@probe"},
         .source = "mpirun(1): -nolocal, do not run any copies of the application on the local "
                   "node"});
  vnode({.name = "vn-nolocal-hostfile",
         .args = {"--hostfile", "hf", "-nolocal", "@probe"},
         .checks = kRefusal,
         .files = {{"hf", "localhost slots=1\nnode1 slots=2\nnode2 slots=1\n"}},
         .source = "mpirun(1): -nolocal without -np asks for every slot, the local ones too"});
  vnode({.name = "vn-nolocal-hostfile-oversubscribe",
         .args = {"--hostfile", "hf", "-nolocal", "--oversubscribe", "@probe"},
         .pending = kOversubscribedRemote,
         .pending_on = Report,
         .files = {{"hf", "localhost slots=1\nnode1 slots=2\nnode2 slots=1\n"}},
         .source = "mpirun(1): -nolocal without -np, oversubscribed"});
  vnode({.name = "vn-policy-env",
         .args = {"-H", "node1:1,node2:1", "--map-by", "node", "--bind-to", "core", "-n", "2",
                  "@probe"},
         .env = {policy_env},
         .source = "issue 20: mapping and binding parameters reach ranks on every node"});
  vnode({.name = "vn-nolocal-policy-env",
         .args = {"--nolocal", "-H", "localhost:1,node1:2", "-n", "2", "@probe"},
         .env = {policy_env},
         .source = "mpirun(1): --nolocal, passed on"});
  vnode({.name = "vn-index-argv-by-rank",
         .args = {"-H", "node1:1,node2:1", "--index-argv-by-rank", "-n", "2", "@probe"},
         .source = "mpirun(1): --index-argv-by-rank on every node"});
  vnode({.name = "vn-nolocal-counted",
         .args = {"--hostfile", "hf", "-nolocal", "-n", "3", "@probe"},
         .files = {{"hf", "localhost\nnode1 slots=1\nnode2\n"}},
         .source = "mpirun(1): -nolocal, host file lines without slots="});
  vnode({.name = "vn-nolocal-mca-env",
         .args = {"-H", "localhost:1,node1:2", "-n", "2", "@probe"},
         .env = {"OMPI_MCA_rmaps_base_no_schedule_local=1"},
         .source = "mpirun(1): --nolocal as an MCA parameter"});
  vnode({.name = "vn-path",
         .args = {"-H", "node1:1,node2:1", "--path", "pbin", "-n", "2", "pprobe"},
         .env = {"PROBE_ENV=OMPI_exec_path,PATH"},
         .files = {{"pbin/pprobe", "#!/bin/sh\nexec @probe pbin \"$@\"\n"}},
         .source = "mpirun(1): --path <path> on remote nodes"});
  vnode({.name = "vn-prefix",
         .args = {"-H", "node1:1,node2:1", "--prefix", "/usr", "-n", "2", "@probe"},
         .pending = kPrefixRemote,
         .pending_on = Report,
         .env = {"PROBE_ENV=PATH,LD_LIBRARY_PATH"},
         .source = "mpirun(1): --prefix <dir> on remote nodes"});
  vnode({.name = "vn-too-many",
         .args = {"-H", "node1:1,node2:1", "-n", "3", "@probe"},
         .checks = kRefusal,
         .source = "mpirun(1): more processes than the nodes' slots"});
  vnode({.name = "vn-mca-btl",
         .args = {"-H", "node1:2,node2:2", "--mca", "btl", "self,vader,tcp", "-n", "4", "@probe"},
         .source = "mpirun(1): --mca btl across nodes"});
  vnode({.name = "vn-mca-mapping-policy-env",
         .args = {"-H", "node1:2,node2:2", "-n", "2", "@probe"},
         .env = {"OMPI_MCA_rmaps_base_mapping_policy=node"},
         .source = "issue 20 item 6: OMPI_MCA_rmaps_base_mapping_policy=node"});
  vnode({.name = "vn-rmaps-seq",
         .args = {"-mca", "rmaps", "seq", "--hostfile", "hf", "-n", "3", "--report-bindings",
                  "@probe"},
         .files = {{"hf", "node2\nnode1\nnode2\n"}},
         .source = "issue 20 item 6: -mca rmaps seq places ranks in hostfile line order"});
  // The seq mapper binds nothing on mpirun's other nodes, but tells their ranks they are bound
  // (OMPI_MCA_orte_bound_at_launch=1; each MPI rank then reports "not bound" itself), also with
  // --bind-to core; not with --bind-to none (mpirun 4.1.4, measured in session 12).
  vnode({.name = "vn-map-by-seq",
         .args = {"--map-by", "seq", "--hostfile", "hf", "-n", "3", "--report-bindings", "@probe"},
         .files = {{"hf", "node2\nnode1\nnode2\n"}},
         .source = "mpirun 4.1.4: --map-by seq, hostfile line order, other nodes unbound"});
  vnode({.name = "vn-map-by-seq-bind-to-core",
         .args = {"--map-by", "seq", "--hostfile", "hf", "-n", "2", "--bind-to", "core",
                  "--report-bindings", "@probe"},
         .files = {{"hf", "node1\nnode1\n"}},
         .source = "mpirun 4.1.4: --map-by seq binds nothing on its other nodes, --bind-to core "
                   "too"});
  vnode({.name = "vn-map-by-seq-bind-to-none",
         .args = {"--map-by", "seq", "--hostfile", "hf", "-n", "3", "--bind-to", "none",
                  "--report-bindings", "@probe"},
         .files = {{"hf", "node2\nnode1\nnode2\n"}},
         .source = "mpirun 4.1.4: --map-by seq --bind-to none: not told bound"});
  vnode({.name = "vn-rmaps-seq-two",
         .args = {"-mca", "rmaps", "seq", "--hostfile", "hf", "-n", "2", "--report-bindings",
                  "@probe"},
         .files = {{"hf", "node2\nnode1\n"}},
         .source = "mpirun 4.1.4: --mca rmaps seq tells the other nodes' ranks they are bound"});
  vnode({.name = "vn-map-by-seq-dash-h",
         .args = {"--map-by", "seq", "-H", "node1,node2,node2", "-n", "3", "@probe"},
         .source = "mpirun(1): --map-by seq over -H words (3 ranks: NUMA-bound, the whole "
                   "machine, on both launchers)"});
  vnode({.name = "vn-map-by-seq-too-many",
         .args = {"--map-by", "seq", "--hostfile", "hf", "-n", "4", "--oversubscribe", "@probe"},
         .checks = kRefusal,
         .files = {{"hf", "node2\nnode1\nnode2\n"}},
         .source = "mpirun 4.1.4: the seq mapper runs one process per line"});
  vnode({.name = "vn-map-by-slot",
         .args = {"-H", "node1:2,node2:2", "--map-by", "slot", "-n", "3", "@probe"},
         .source = "mpirun(1): --map-by slot"});
  vnode({.name = "vn-mpmd-hostfile",
         .args = {"-n", "1", "--hostfile", "hf1", "@probe", ":", "-n", "1", "--hostfile", "hf2",
                  "@probe"},
         .files = {{"hf1", "node1 slots=2\n"}, {"hf2", "node2 slots=2\n"}},
         .source = "MPMD: a host file per application context"});
  vnode({.name = "vn-mpmd-hostfile-first-only",
         .args = {"-n", "1", "--hostfile", "hf1", "@probe", ":", "-n", "1", "@probe"},
         .files = {{"hf1", "node1 slots=2\n"}},
         .source = "MPMD: a host file with the first context only (both contexts on its hosts)"});
  // mpirun 4.1.4: the first file naming a host gives its slots (node1 keeps 1), so context 2
  // has one free slot: "not enough slots", exit 1.
  vnode({.name = "vn-mpmd-hostfile-shared-host",
         .args = {"-n", "1", "--hostfile", "hf1", "@probe", ":", "-n", "2", "--hostfile", "hf2",
                  "@probe"},
         .checks = kRefusal,
         .files = {{"hf1", "node1 slots=1\n"}, {"hf2", "node1 slots=2\nnode2 slots=1\n"}},
         .source = "MPMD: two host files naming one host"});
  vnode({.name = "vn-mpmd-hostfile-shared-host-fits",
         .args = {"-n", "1", "--hostfile", "hf1", "@probe", ":", "-n", "2", "--hostfile", "hf2",
                  "@probe"},
         .files = {{"hf1", "node1 slots=2\n"}, {"hf2", "node1 slots=1\nnode2 slots=1\n"}},
         .source = "MPMD: two host files naming one host, the first file's slots"});
  // mpirun 4.1.4: "All nodes which are allocated for this job are already filled.", exit 1.
  vnode(
      {.name = "vn-mpmd-hostfile-and-host",
       .args = {"-n", "1", "--hostfile", "hf1", "@probe", ":", "-n", "1", "-H", "node2", "@probe"},
       .checks = kRefusal,
       .files = {{"hf1", "node1 slots=2\n"}},
       .source = "MPMD: a host file for one context, -H for the other"});
  // mpirun 4.1.4: with -H in any context the -H hosts are the job's (node2, one slot) and the
  // host file only picks among them: context 1 (-n 2) gets "not enough slots", exit 1.
  vnode(
      {.name = "vn-mpmd-hostfile-and-host-inside",
       .args = {"-n", "2", "--hostfile", "hf1", "@probe", ":", "-n", "1", "-H", "node2", "@probe"},
       .checks = kRefusal,
       .files = {{"hf1", "node1 slots=1\nnode2 slots=2\n"}},
       .source = "MPMD: -H of a later context names a host of the first context's host file"});
  vnode({.name = "vn-mpmd-hostfile-and-hosts",
         .args = {"-n", "1", "--hostfile", "hf1", "@probe", ":", "-n", "1", "-H", "node2,node1",
                  "@probe"},
         .files = {{"hf1", "node1 slots=1\nnode2 slots=2\n"}},
         .source = "MPMD: -H hosts are the job's, a host file picks among them"});
  vnode({.name = "vn-appfile-hostfiles",
         .args = {"--app", "appfile"},
         .files = {{"appfile", "-n 1 --hostfile hf1 @probe first\n-n 2 --hostfile hf2 @probe\n"},
                   {"hf1", "node2 slots=2\n"},
                   {"hf2", "node1 slots=2\n"}},
         .source = "mpirun(1): --app with a host file per line"});
  // A line's --hostfile counts with one on the command line, which mpirun 4.1.4 ignores with
  // --app (measured: both ranks on node2).
  vnode({.name = "vn-appfile-hostfile-command-line-and-line",
         .args = {"--hostfile", "hf1", "--app", "appfile"},
         .checks = Report | Stdout,
         .files = {{"appfile", "-n 1 @probe\n-n 1 --hostfile hf2 @probe\n"},
                   {"hf1", "node1 slots=2\n"},
                   {"hf2", "node2 slots=2\n"}},
         .source = "issue 20: --hostfile on the command line and on an appfile line"});
  vnode({.name = "vn-appfile-default-hostfile",
         .args = {"--default-hostfile", "hf1", "--app", "appfile"},
         .files = {{"appfile", "-n 1 @probe\n-n 1 @probe\n"}, {"hf1", "node1 slots=2\n"}},
         .source = "mpirun(1): --default-hostfile with --app"});
  // -H on a line is that context's, as with MPMD: the job's hosts are the lines' -H hosts, a
  // line without -H runs on them (here node1's one slot is taken: "already filled", exit 1).
  vnode({.name = "vn-appfile-line-hosts",
         .args = {"--app", "appfile"},
         .files = {{"appfile", "-n 1 -H node2 @probe\n-n 1 -H node1,node2 @probe\n"}},
         .source = "issue 20: -H on appfile lines"});
  // A host named by several contexts' -H has the slots the last of them gives it (measured:
  // node2:2 then node2 is one slot, "already filled", exit 1; node2 then node2:2 is two).
  vnode({.name = "vn-mpmd-hosts-last-context-slots",
         .args = {"-n", "1", "-H", "node2:2", "@probe", ":", "-n", "1", "-H", "node2", "@probe"},
         .checks = kRefusal,
         .source = "issue 20: one host in two contexts' -H, the last with fewer slots"});
  vnode({.name = "vn-mpmd-hosts-last-context-more-slots",
         .args = {"-n", "1", "-H", "node2", "@probe", ":", "-n", "1", "-H", "node2:2", "@probe"},
         .source = "issue 20: one host in two contexts' -H, the last with more slots"});
  vnode({.name = "vn-appfile-line-hosts-filled",
         .args = {"--app", "appfile"},
         .checks = kRefusal,
         .files = {{"appfile", "-n 1 -H node1 @probe\n-n 1 @probe\n"}},
         .source = "issue 20: -H on an appfile's first line only"});
  // --npernode and --npersocket on any line map the whole job, the last one given winning
  // (measured: a middle line's --npernode 1 puts the first line's ranks on two nodes).
  vnode({.name = "vn-appfile-npernode-middle-line",
         .args = {"--default-hostfile", "hf", "--app", "appfile"},
         .files = {{"appfile", "-n 2 @probe\n-n 1 --npernode 1 @probe\n-n 1 @probe\n"},
                   {"hf", "node1 slots=2\nnode2 slots=2\n"}},
         .source = "issue 20: --npernode on an appfile's middle line"});
  vnode({.name = "vn-appfile-npersocket-lines",
         .args = {"--default-hostfile", "hf", "--npersocket", "2", "--app", "appfile"},
         .files = {{"appfile", "-n 2 --npersocket 1 @probe\n-n 2 @probe\n"},
                   {"hf", "node1 slots=2\nnode2 slots=2\n"}},
         .source = "issue 20: --npersocket on the command line and an appfile line"});
  // --ppr on an appfile line changes nothing (measured), --map-by ppr: on the last line maps.
  vnode({.name = "vn-appfile-ppr-last-line",
         .args = {"--default-hostfile", "hf", "--app", "appfile"},
         .checks = Report | Stdout,
         .files = {{"appfile", "-n 2 @probe\n-n 2 --ppr 1:node @probe\n"},
                   {"hf", "node1 slots=2\nnode2 slots=2\n"}},
         .source = "issue 20: --ppr on an appfile's last line"});
  vnode({.name = "vn-appfile-map-by-ppr-last-line",
         .args = {"--default-hostfile", "hf", "--app", "appfile"},
         .files = {{"appfile", "-n 2 @probe\n-n 2 --map-by ppr:1:node @probe\n"},
                   {"hf", "node1 slots=2\nnode2 slots=2\n"}},
         .source = "issue 20: --map-by ppr:1:node on an appfile's last line"});
  // MPMD: a middle context's --map-by changes nothing, the last one's maps the job (measured).
  // A middle context's :OVERSUBSCRIBE changes nothing, --oversubscribe counts anywhere; an
  // oversubscribe directive with a no-oversubscribe one before the first program is refused
  // (mpirun 4.1.4, measured; mpilaunch ran all three refused ones).
  add({.name = "mpmd-oversubscribe-modifier-middle-context",
       .args = {"-H", "localhost:2", "-n", "1", "@probe", ":", "-n", "1", "--map-by",
                "slot:OVERSUBSCRIBE", "@probe", ":", "-n", "1", "@probe"},
       .checks = kRefusal,
       .source = "issue 21: :OVERSUBSCRIBE in a middle MPMD context"});
  add({.name = "mpmd-oversubscribe-flag-middle-context",
       .args = {"-H", "localhost:2", "-n", "1", "@probe", ":", "-n", "1", "--oversubscribe",
                "@probe", ":", "-n", "1", "@probe"},
       .source = "issue 21: --oversubscribe in a middle MPMD context"});
  add({.name = "oversubscribe-conflicts-nooversubscribe-modifier",
       .args = {"-H", "localhost:2", "--oversubscribe", "--map-by", "slot:NOOVERSUBSCRIBE", "-n",
                "2", "@probe"},
       .checks = kRefusal,
       .source = "issue 21: --oversubscribe with --map-by slot:NOOVERSUBSCRIBE"});
  add({.name = "oversubscribe-conflicts-nooversubscribe",
       .args = {"-H", "localhost:2", "--oversubscribe", "--nooversubscribe", "-n", "2", "@probe"},
       .checks = kRefusal,
       .source = "issue 21: --oversubscribe with --nooversubscribe"});
  // The parameters of the placement options, from --mca or the environment, map and bind as
  // the options do (measured; mpilaunch ignored them: -N's parameter ran a rank per slot).
  const std::vector<std::pair<std::string, std::vector<std::string>>> kOptionParameters = {
      {"n-pernode", {"--mca", "rmaps_base_n_pernode", "2"}},
      {"ppr-n-pernode", {"--mca", "rmaps_ppr_n_pernode", "2"}},
      {"pernode", {"--mca", "rmaps_base_pernode", "1"}},
      {"n-persocket", {"--mca", "rmaps_base_n_persocket", "2"}},
      {"pattern", {"--mca", "rmaps_base_pattern", "2:socket"}},
      {"bycore", {"-n", "4", "--mca", "rmaps_base_bycore", "1"}},
      {"bind-to-core", {"-n", "4", "--mca", "hwloc_base_bind_to_core", "1"}},
      {"cpus-per-rank", {"-n", "2", "--mca", "rmaps_base_cpus_per_rank", "2"}},
      {"n-pernode-with-map-by", {"--mca", "rmaps_base_n_pernode", "1", "--map-by", "core"}},
  };
  for (const auto& [name, words] : kOptionParameters) {
    std::vector<std::string> args = {"--do-not-launch", "-H", "localhost:16"};
    args.insert(args.end(), words.begin(), words.end());
    args.push_back("@probe");
    add({.name = "xml-map-8core-ht-mca-" + name,
         .args = args,
         .checks = Stdout,
         .env = {"HWLOC_XMLFILE=@data/topologies/2pack-8core-ht.xml"},
         .source = "mpirun 4.1.4: a placement option's MCA parameter acts as the option"});
  }
  add({.name = "mca-env-n-pernode",
       .args = {"-H", "localhost:2", "@probe"},
       .env = {"OMPI_MCA_rmaps_base_n_pernode=1"},
       .source = "mpirun 4.1.4: OMPI_MCA_rmaps_base_n_pernode=1 runs one rank per node"});
  add({.name = "mca-rankfile",
       .args = {"--mca", "orte_rankfile", "rf", "-n", "2", "@probe"},
       .files = {{"rf", "rank 0=localhost slot=1\nrank 1=localhost slot=0\n"}},
       .source = "mpirun 4.1.4: --mca orte_rankfile F places as -rf F"});
  add({.name = "mca-env-do-not-launch",
       .args = {"-H", "localhost:2", "-n", "2", "@probe"},
       .checks = Stdout,
       .env = {"OMPI_MCA_orte_do_not_launch=1"},
       .source = "mpirun 4.1.4: OMPI_MCA_orte_do_not_launch=1 prints the map, starts nothing"});
  add({.name = "mca-bynode-conflicts-bycore",
       .args = {"--mca", "rmaps_base_bynode", "1", "--mca", "rmaps_base_bycore", "1", "-n", "1",
                "@probe"},
       .checks = kRefusal,
       .source = "mpirun 4.1.4: two by* parameters"});
  add({.name = "mca-bycore-conflicts-ppr",
       .args = {"--mca", "rmaps_base_bycore", "1", "--ppr", "1:socket", "-n", "1", "@probe"},
       .checks = kRefusal,
       .source = "mpirun 4.1.4: rmaps_base_bycore with another mapping policy"});
  add({.name = "mca-bind-to-core-conflicts-bind-to",
       .args = {"--mca", "hwloc_base_bind_to_core", "1", "--bind-to", "socket", "-n", "1",
                "@probe"},
       .checks = kRefusal,
       .source = "mpirun 4.1.4: hwloc_base_bind_to_core with another binding policy"});
  add({.name = "mca-bycore-same-as-map-by",
       .args = {"--mca", "rmaps_base_bycore", "1", "--map-by", "core", "-n", "2", "@probe"},
       .source = "mpirun 4.1.4: the same policy twice is no conflict"});
  // Measured (issue 21, mpmdovs): a first context's mapping policy decides alone when the last
  // context gives none (a later --oversubscribe ignored); else --oversubscribe counts wherever
  // it stands, over a last :NOOVERSUBSCRIBE; a later --nooversubscribe changes nothing.
  add({.name = "mpmd-oversubscribe-flag-after-first-map-by",
       .args = {"-H", "localhost:2", "--map-by", "core", "-n", "1", "@probe", ":", "-n", "1",
                "@probe", ":", "-n", "1", "--oversubscribe", "@probe"},
       .checks = kRefusal,
       .source = "issue 21: a later --oversubscribe after a first context's --map-by"});
  add({.name = "mpmd-oversubscribe-flag-after-mca-mapping-policy",
       .args = {"-H", "localhost:2", "--mca", "rmaps_base_mapping_policy", "core", "-n", "1",
                "@probe", ":", "-n", "1", "@probe", ":", "-n", "1", "--oversubscribe", "@probe"},
       .checks = kRefusal,
       .source = "issue 21: a later --oversubscribe after rmaps_base_mapping_policy"});
  add({.name = "appfile-oversubscribe-line-after-command-line-map-by",
       .args = {"-H", "localhost:2", "--map-by", "core", "--app", "appfile"},
       .checks = kRefusal,
       .files = {{"appfile", "-n 1 @probe\n-n 1 @probe\n-n 1 --oversubscribe @probe\n"}},
       .source = "issue 21: an appfile line's --oversubscribe after the command line's --map-by"});
  add({.name = "mpmd-oversubscribe-flag-over-last-nooversubscribe-modifier",
       .args = {"-H", "localhost:2", "--oversubscribe", "-n", "1", "@probe", ":", "-n", "1",
                "@probe", ":", "-n", "1", "--map-by", "slot:NOOVERSUBSCRIBE", "@probe"},
       .source = "issue 21: --oversubscribe with a last context's :NOOVERSUBSCRIBE"});
  add({.name = "mpmd-nooversubscribe-later-context",
       .args = {"-H", "localhost:2", "--oversubscribe", "-n", "1", "@probe", ":", "-n", "1",
                "@probe", ":", "-n", "1", "--nooversubscribe", "@probe"},
       .source = "issue 21: --nooversubscribe in a later MPMD context"});
  add({.name = "mpmd-mca-oversubscribe-last-nooversubscribe-modifier",
       .args = {"-H", "localhost:2", "--mca", "rmaps_base_oversubscribe", "1", "-n", "1", "@probe",
                ":", "-n", "1", "@probe", ":", "-n", "1", "--map-by", "slot:NOOVERSUBSCRIBE",
                "@probe"},
       .checks = kRefusal,
       .source = "issue 21: rmaps_base_oversubscribe with a last context's :NOOVERSUBSCRIBE"});
  add({.name = "oversubscribe-modifier-conflicts-nooversubscribe",
       .args = {"-H", "localhost:2", "--map-by", "slot:OVERSUBSCRIBE", "--nooversubscribe", "-n",
                "2", "@probe"},
       .checks = kRefusal,
       .source = "issue 21: --map-by slot:OVERSUBSCRIBE with --nooversubscribe"});
  add({.name = "oversubscribe-conflicts-mca-mapping-policy",
       .args = {"-H", "localhost:2", "--oversubscribe", "--mca", "rmaps_base_mapping_policy",
                "slot:NOOVERSUBSCRIBE", "-n", "2", "@probe"},
       .checks = kRefusal,
       .source = "issue 21: --oversubscribe with rmaps_base_mapping_policy slot:NOOVERSUBSCRIBE"});
  add({.name = "bynode-conflicts-byslot",
       .args = {"--bynode", "--byslot", "-n", "1", "@probe"},
       .checks = kRefusal,
       .source = "mpirun 4.1.4: two of --bycore, --byslot and --bynode"});
  add({.name = "mca-oversubscribe-conflicts-nooversubscribe",
       .args = {"-H", "localhost:2", "--mca", "rmaps_base_oversubscribe", "1", "--nooversubscribe",
                "-n", "2", "@probe"},
       .checks = kRefusal,
       .source = "issue 21: --mca rmaps_base_oversubscribe 1 with --nooversubscribe"});
  vnode({.name = "vn-mpmd-map-by-middle-context",
         .args = {"--default-hostfile", "hf", "-n", "2", "@probe", ":", "-n", "1", "--map-by",
                  "node", "@probe", ":", "-n", "1", "@probe"},
         .files = {{"hf", "node1 slots=3\nnode2 slots=3\n"}},
         .source = "issue 20: --map-by with a middle MPMD context"});
  vnode({.name = "vn-np-zero-hosts",
         .args = {"-n", "0", "-H", "node1:2,node2", "@probe"},
         .source = "mpirun(1): -n 0 with -H"});
  vnode({.name = "vn-np-zero-hostfile",
         .args = {"-n", "0", "--hostfile", "hf", "@probe"},
         .files = {{"hf", "node1 slots=2\nnode2 slots=2\n"}},
         .source = "mpirun(1): -n 0 with a host file"});
  vnode({.name = "vn-mpmd-hosts",
         .args = {"-n", "1", "-H", "node2", "@probe", ":", "-n", "1", "-H", "node1", "@probe"},
         .source = "issue 20 item 2: per-context -H"});
  vnode({.name = "vn-rank-killed",
         .args = {"-H", "node1:1,node2:1", "-n", "2", "@probe"},
         .checks = Report | Framed,
         .env = {"PROBE_SIGNAL_RANK=1", "PROBE_SIGNAL=9"},
         .source = "a rank on the second node killed by SIGKILL"});
  vnode({.name = "vn-rankfile",
         .args = {"-rf", "rf", "-n", "3", "--report-bindings", "@probe"},
         .files = {{"rf", "rank 0=node2 slot=1\nrank 1=node1 slot=0\nrank 2=node2 slot=0\n"}},
         .source = "mpirun(1): a rankfile's hosts without -H"});
  vnode({.name = "vn-rankfile-hosts",
         .args = {"-rf", "rf", "-H", "node1,node2", "-n", "2", "@probe"},
         .files = {{"rf", "rank 0=node2 slot=1\nrank 1=node1 slot=0\n"}},
         .source = "mpirun(1): a rankfile with -H"});
  // A -H host no rankfile line names keeps its agent (mpirun: its orted) but gets no process:
  // the spawns, nested too (job 3), go through the file's lines (measured, session 10).
  vnode({.name = "vn-rankfile-spawn-nested-unnamed-host",
         .args = {"-H", "node1:2,node2:2", "-rf", "rf", "--oversubscribe", "-n", "1",
                  "--tag-output", "--report-bindings", "@app:spawn_locality", "1", "1"},
         .checks = Stdout | Stderr,
         .files = {{"rf", "rank 0=node1 slot=1\n"}},
         .source = "issue 21: spawns from a rankfile job with a host no line names"});
  vnode({.name = "vn-rankfile-not-allocated",
         .args = {"-rf", "rf", "-H", "node1", "-n", "2", "@probe"},
         .checks = kRefusal,
         .files = {{"rf", "rank 0=node2 slot=1\nrank 1=node1 slot=0\n"}},
         .source = "mpirun 4.1.4: a rankfile host outside -H is refused"});
  // --cpu-list on virtual nodes: each node's ranks on the list's CPUs of their node.
  vnode({.name = "vn-cpu-list",
         .args = {"-H", "node1:2,node2:2", "-n", "4", "--cpu-list", "1", "--report-bindings",
                  "@probe"},
         .source = "mpirun(1): --cpu-list on several nodes"});
  vnode({.name = "vn-cpu-list-ordered",
         .args = {"-H", "node1:2,node2:2", "-n", "4", "--cpu-list", "1,0", "--bind-to",
                  "cpu-list:ordered", "@probe"},
         .source = "mpirun(1): --bind-to cpu-list:ordered on several nodes"});
  vnode({.name = "vn-npersocket-no-np",
         .args = {"-H", "node1:2,node2:2", "--npersocket", "1", "@probe"},
         .source = "mpirun(1): --npersocket without -np on every node"});
  // mpirun 4.1.4 binds node by node (its daemon per node), and drops a default binding only on
  // a node it would overload (measured in session 11). Its daemon reports each rank it bound,
  // "not bound (or bound to all available processors)" for the NUMA node of this machine; the
  // ranks of a node left unbound get no line from it (an MPI rank prints its own): a program
  // that is not MPI shows the difference.
  vnode({.name = "vn-report-bindings-not-mpi",
         .args = {"-H", "node1:2,node2:2", "-n", "4", "--report-bindings", "/bin/true"},
         .checks = Stdout | Stderr,
         .source = "issue 21: --report-bindings of a program that is not MPI on virtual nodes"});
  vnode({.name = "vn-report-bindings-not-mpi-node-dropped",
         .args = {"-H", "node1:3,node2:1", "-n", "4", "--tag-output", "--report-bindings",
                  "/bin/true"},
         .checks = Stdout | Stderr,
         .source = "issue 21: a default binding dropped on one node only"});
  vnode({.name = "vn-report-bindings-not-mpi-map-by-core",
         .args = {"-H", "node1:3,node2:1", "-n", "4", "--map-by", "core", "--report-bindings",
                  "/bin/true"},
         .checks = Stdout | Stderr,
         .source = "issue 21: --map-by core's binding dropped on one node only"});
  vnode({.name = "vn-report-bindings-not-mpi-bind-none",
         .args = {"-H", "node1:2,node2:2", "-n", "4", "--bind-to", "none", "--report-bindings",
                  "/bin/true"},
         .checks = Stdout | Stderr,
         .source = "issue 21: --report-bindings, --bind-to none, a program that is not MPI"});
  vnode({.name = "vn-binding-per-node",
         .args = {"-H", "node1:1,node2:3,node3:1", "-n", "5", "--report-bindings", "@probe"},
         .env = {"PROBE_ENV=OMPI_MCA_hwloc_base_report_bindings"},
         .source = "issue 21: the default binding decided node by node"});
  vnode({.name = "vn-bind-to-core-per-node",
         .args = {"-H", "node1:2,node2:2", "-n", "4", "--bind-to", "core", "--report-bindings",
                  "@probe"},
         .source = "issue 21: --bind-to core on virtual nodes, cores 0 and 1 on each"});
  // ppr is N per object of each node, per application context, over the nodes with a free slot
  // (mpirun 4.1.4, measured; mpilaunch filled node1's slots first, then refused or ran).
  vnode({.name = "vn-ppr-socket-caps-node",
         .args = {"-H", "node1:2,node2:2", "-n", "2", "--map-by", "ppr:1:socket", "@probe"},
         .source = "issue 21: --map-by ppr:1:socket with -n caps each node"});
  vnode({.name = "vn-npersocket-caps-node-machinefile",
         .args = {"-n", "2", "--npersocket", "1", "-machinefile", "nodeinf", "@probe"},
         .files = {{"nodeinf", "node1\nnode2\n"}},
         .source = "issue 21: --npersocket with -n, host file lines without slots="});
  vnode({.name = "vn-ppr-node-fewer-than-n",
         .args = {"-H", "node1:2,node2:2", "-n", "2", "--map-by", "ppr:3:node", "@probe"},
         .source = "issue 21: ppr:3:node -n 2: the first node takes the 2 asked for"});
  vnode({.name = "vn-ppr-socket-over-slots",
         .args = {"-H", "node1:1,node2:3", "-n", "2", "--map-by", "ppr:2:socket", "@probe"},
         .checks = kRefusal,
         .source = "issue 21: ppr:2:socket puts 2 on a node of 1 slot (mpilaunch ran it)"});
  vnode({.name = "vn-mpmd-ppr-socket-each-context",
         .args = {"-H", "node1:2,node2:2", "--map-by", "ppr:1:socket", "-n", "2", "@probe", ":",
                  "-n", "2", "@probe"},
         .source = "issue 21: ppr:1:socket counts each MPMD context's ranks on their own"});
  vnode({.name = "vn-mpmd-npernode-later-context-free-node",
         .args = {"-H", "node1:2,node2:2", "-n", "3", "--npernode", "2", "@probe", ":", "-n", "1",
                  "@probe"},
         .source = "issue 21: a later context's ranks go to the nodes with a free slot"});
  vnode({.name = "vn-report-bindings",
         .args = {"-H", "node1:1,node2:1", "--report-bindings", "-n", "2", "@probe"},
         .pending = kBinding,
         .source = "mpirun(1): --report-bindings across nodes"});
  for (Case& c : project_cases()) t.push_back(std::move(c));
  return t;
}

}  // namespace

const std::map<std::string, std::string>& known_key_differences() {
  static const std::map<std::string, std::string> keys = {
      {"cpus", kBinding},
      {"env.OMPI_MCA_orte_bound_at_launch", kBinding},
      {kSharingOfBinding, kBinding},
      {"universe", kUniverse},
      {"env.OMPI_UNIVERSE_SIZE", kUniverse},
  };
  return keys;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = table();
  return all;
}

std::string binary_input(std::size_t size) {
  std::string bytes(size, '\0');
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (char& b : bytes) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    b = static_cast<char>(state >> 56);
  }
  return bytes;
}

}  // namespace mpilaunch::compat
