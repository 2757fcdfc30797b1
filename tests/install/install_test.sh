#!/usr/bin/env bash
# The install layout (issue #10): `meson install` into a throw-away DESTDIR puts the binaries,
# man pages, completions and example config where Debian expects them; the installed
# launcher runs a real 2-rank Open MPI job with the installed agent; the man page renders
# without warnings and lists every option --help lists; the bash completion completes
# options, option values and hosts from the host file on the line.
# Usage: install_test.sh BUILD_DIR HELLO_PROGRAM
set -euo pipefail
build=$1 hello=$2
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
fail() { echo "install_test: $*" >&2; exit 1; }

meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >/dev/null
prefix=$(meson introspect "$build" --buildoptions |
  python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
root=$dest$prefix
for f in bin/mpilaunch bin/mpilaunch-agent share/man/man1/mpilaunch.1 \
         share/man/man1/mpilaunch-agent.1 share/bash-completion/completions/mpilaunch \
         share/zsh/site-functions/_mpilaunch share/doc/mpilaunch/examples/mpilaunch.conf; do
  [ -f "$root/$f" ] || fail "missing after install: $f"
done
[ -n "$(find "$dest" -path '*mpilaunch/mpilaunch.conf' -not -path '*/doc/*')" ] ||
  fail "no mpilaunch.conf under sysconfdir"

# The installed launcher finds the installed agent next to it and runs real ranks. Its own
# config directories are empty ones, never the machine's.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export MPILAUNCH_SYSCONFDIR=$dest/no-etc XDG_CONFIG_HOME=$dest/no-config
out=$(PATH=/usr/bin:/bin "$root/bin/mpilaunch" -n 2 "$hello")
[ "$(grep -c ' ok$' <<<"$out")" = 2 ] || fail "installed mpilaunch -n 2 hello printed: $out"

# The man page renders cleanly and documents every option --help shows.
warnings=$(MANWIDTH=100 man --warnings -l "$root/share/man/man1/mpilaunch.1" 2>&1 >/dev/null || true)
[ -z "$warnings" ] || fail "man page warnings: $warnings"
page=$(MANWIDTH=200 man -l "$root/share/man/man1/mpilaunch.1" 2>/dev/null | col -b)
for opt in $("$root/bin/mpilaunch" --help | grep -oE '^  (-[A-Za-z]|--[a-z][a-z-]+)' | sort -u); do
  grep -q -- "$opt" <<<"$page" || fail "man page lacks $opt"
done
grep -q "EXIT STATUS" <<<"$page" && grep -q "agent-lost" <<<"$page" || fail "man page lacks exit codes or error kinds"

# Bash completion: options, --launcher's values, hosts from the host file named on the line.
hosts=$dest/hosts
printf 'alpha slots=2\nbeta:4\n# gamma\n' > "$hosts"
completes() {  # WORDS... : prints COMPREPLY for the last word
  bash --norc -c '
    source "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
    _mpilaunch; printf "%s\n" "${COMPREPLY[@]}"' _ "$root/share/bash-completion/completions/mpilaunch" "$@"
}
grep -qx -- --max-restarts <<<"$(completes mpilaunch --max-res)" || fail "no --max-restarts completion"
[ "$(completes mpilaunch --launcher '' | sort | tr '\n' ' ')" = "local srun ssh " ] ||
  fail "--launcher values: $(completes mpilaunch --launcher '')"
got=$(HOME=$dest completes mpilaunch --hostfile "$hosts" -H '' | sort | tr '\n' ' ')
[ "$got" = "alpha beta " ] || fail "-H hosts from the host file: '$got'"

# zsh: the function file parses (zsh may be absent; the file must at least name every option).
for opt in --max-restarts --launcher --hostfile -H; do
  grep -q -- "'$opt\[" "$root/share/zsh/site-functions/_mpilaunch" || fail "zsh completion lacks $opt"
done
if command -v zsh >/dev/null; then zsh -n "$root/share/zsh/site-functions/_mpilaunch" || fail "zsh syntax"; fi
echo "install layout, installed run, man page and completions: ok"
