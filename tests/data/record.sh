#!/usr/bin/env bash
# Records one golden transcript: runs CMD in the directory of the compiled test programs and
# stores cmd, stdout, stderr and rc under tests/data/RUNTIME/CASE/ (expected.json is written by
# hand). Programs are built first with mpicc.openmpi or mpicc.mpich into /tmp/mpilaunch-programs.
# prrte runs inside a Debian 13 chroot (Open MPI 5) named by MPILAUNCH_CHROOT.
# Usage: tests/data/record.sh orte|hydra|prrte CASE 'CMD...'
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runtime=$1 name=$2 cmd=$3
case $runtime in
  orte) cc=mpicc.openmpi ;;
  hydra) cc=mpicc.mpich ;;
  prrte) cc=mpicc ;;
  *) echo "unknown runtime $runtime" >&2; exit 64 ;;
esac
root=${MPILAUNCH_CHROOT:-}
[ "$runtime" = prrte ] || root=
in_root() { if [ -n "$root" ]; then chroot "$root" bash -c "$1"; else bash -c "$1"; fi; }
bin=/tmp/mpilaunch-programs/$runtime
mkdir -p "$root$bin"
for src in "$here"/programs/*.c; do
  exe=$bin/$(basename "$src" .c)
  cp "$src" "$root$bin/"
  [ "$root$exe" -nt "$src" ] || in_root "$cc -O0 -g -o $exe $exe.c"
done
out=$here/$runtime/$name
mkdir -p "$out"
printf '%s\n' "$cmd" > "$out/cmd"
set +e
in_root "cd $bin && timeout -k 5 120 bash -c $(printf '%q' "$cmd")" > "$out/stdout" 2> "$out/stderr" < /dev/null
echo $? > "$out/rc"
set -e
echo "$runtime/$name: rc $(cat "$out/rc")"
