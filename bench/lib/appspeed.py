#!/usr/bin/env python3
"""bench cases 13 and 14: the time a program reports under each launcher, interleaved.

    appspeed.py [--rows NAMES] OUT.json OUT.md ROUNDS CASE LABEL CMD [LABEL CMD ...] [-- CASE ...]

Each round runs every command of a case once, in turn, every other round in reverse order (so
load from other processes falls on all of them alike); a command's time is what the program
itself reports: `seconds=S` (bench/apps/appspeed.c) or LAMMPS's `Loop time of S`. The
launch is not counted. Writes every figure to OUT.json and a markdown table to OUT.md: the
median per command and, for each command after a case's first (mpirun, or Hydra), the median
of the per-round ratios to it and their range, and the ratio of the best rounds (each command's
fastest round over the first command's): load from other processes only ever adds time, so on a
busy machine the best rounds show a difference the launchers make more steadily than the medians
(it needs enough rounds for each command to get an undisturbed one). `--rows NAMES`
(comma-separated case names; empty: all) runs only those cases. Case 14 (spawn time, bench/apps/spawntime.c)
reports `seconds=S` the same way.

Before the rounds, each command runs once more, untimed, with the MPI library's own report of
the transport it chose (Open MPI: pml_base_verbose and btl_base_verbose, read from the
launcher's environment by both launchers; MPICH: MPIR_CVAR_DEBUG_SUMMARY), so that a slower
run can be told apart from one that took another path: "pml ob1, btl vader" (the BTLs the
ranks use to reach each other; "self" only with one rank), "ch4 netmod ucx".
"""
import json
import os
import re
import shlex
import statistics
import subprocess
import sys

PATTERNS = [re.compile(r"^seconds=([0-9.]+)", re.M), re.compile(r"^Loop time of ([0-9.]+)", re.M)]
TRANSPORT_ENV = {"OMPI_MCA_pml_base_verbose": "10", "OMPI_MCA_btl_base_verbose": "100",
                 "MPIR_CVAR_DEBUG_SUMMARY": "1"}
PML = re.compile(r"select: component (\w+) selected")
BTL = re.compile(r"mca: bml: Using (\w+) btl for send to")
NETMOD = re.compile(r"^==== (\w+) netmod Capability ====", re.M)


def transport(cmd):
    """What the command's MPI library says it picked, from one untimed run."""
    try:
        run = subprocess.run(shlex.split(cmd), capture_output=True, text=True, timeout=900,
                             stdin=subprocess.DEVNULL, env={**os.environ, **TRANSPORT_ENV})
    except subprocess.TimeoutExpired:
        return "unknown (timed out)"
    text = run.stdout + run.stderr
    pmls = sorted(set(PML.findall(text)))
    btls = set(BTL.findall(text))
    if len(btls) > 1:
        btls.discard("self")
    netmods = sorted(set(m.lower() for m in NETMOD.findall(text)))
    words = []
    if pmls:
        words.append("pml " + "+".join(pmls))
    if btls:
        words.append("btl " + "+".join(sorted(btls)))
    if netmods:
        words.append("ch4 netmod " + "+".join(netmods))
    return ", ".join(words) if words else f"unknown (exit {run.returncode})"


def loop_seconds(cmd):
    try:
        run = subprocess.run(shlex.split(cmd), capture_output=True, text=True, timeout=900,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "timed out after 900 s"
    for pattern in PATTERNS:
        m = pattern.search(run.stdout)
        if m and run.returncode == 0:
            return float(m.group(1)), ""
    return None, f"exit {run.returncode}: {(run.stderr or run.stdout).strip()[-300:]}"


def main():
    args = sys.argv[1:]
    only = set()
    if args[:1] == ["--rows"]:
        only = {name for name in args[1].split(",") if name}
        args = args[2:]
    out_json, out_md, rounds = args[0], args[1], int(args[2])
    cases, words = [], args[3:]
    while words:
        cut = words.index("--") if "--" in words else len(words)
        name, pairs = words[0], words[1:cut]
        if not only or name in only:
            cases.append((name, list(zip(pairs[::2], pairs[1::2]))))
        words = words[cut + 1:]
    results = {}
    for name, commands in cases:
        times = {label: [] for label, _ in commands}
        errors = {}
        transports = {label: transport(cmd) for label, cmd in commands}
        for label, picked in transports.items():
            print(f"bench: {name} {label}: {picked}", file=sys.stderr)
        for r in range(rounds):
            # Every other round runs the commands in reverse order, so that a load that rises
            # or falls over a round does not always favour the same launcher.
            for label, cmd in (commands if r % 2 == 0 else commands[::-1]):
                seconds, error = loop_seconds(cmd)
                if seconds is None:
                    errors[label] = error
                    print(f"bench: {name} {label}: {error}", file=sys.stderr)
                times[label].append(seconds)
        results[name] = {"commands": dict(commands), "seconds": times, "errors": errors,
                         "transport": transports}
    json.dump(results, open(out_json, "w"), indent=1)
    lines = ["| case | command | median s | ratio to the case's first: median of rounds (min-max) "
             "| best rounds' ratio | runs | transport picked |",
             "|---|---|---|---|---|---|---|"]
    for name, commands in cases:
        times = results[name]["seconds"]
        base_label = commands[0][0]
        for label, _ in commands:
            ok = [t for t in times[label] if t is not None]
            median = f"{statistics.median(ok):.4f}" if ok else "failed"
            ratio, best = "", ""
            base_ok = [t for t in times[base_label] if t is not None]
            if label != base_label and ok and base_ok and min(base_ok) > 0:
                best = f"{min(ok) / min(base_ok):.2f}x"
            if label != base_label:
                pairs = [a / b for a, b in zip(times[label], times[base_label])
                         if a is not None and b]
                ratio = (f"{statistics.median(pairs):.2f}x ({min(pairs):.2f}-{max(pairs):.2f})"
                         if pairs else "-")
            lines.append(f"| {name} | {label} | {median} | {ratio} | {best} | {len(ok)}/{len(times[label])} "
                         f"| {results[name]['transport'][label]} |")
    open(out_md, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
