#!/usr/bin/env python3
"""bench cases 13 and 14: the time a program reports under each launcher, interleaved.

    appspeed.py OUT.json OUT.md ROUNDS CASE LABEL CMD [LABEL CMD ...] [-- CASE LABEL CMD ...]

Each round runs every command of a case once, in turn (so load from other processes falls on
all of them alike); a command's time is what the program itself reports: `seconds=S` (bench/
apps/appspeed.c) or LAMMPS's `Loop time of S`. The launch is not counted. Writes every
figure to OUT.json and a markdown table to OUT.md: the median per command and, for each
command after a case's first (mpirun, or Hydra), the median of the per-round ratios to it and
their range. Case 14 (spawn time, bench/apps/spawntime.c) reports `seconds=S` the same way.
"""
import json
import re
import shlex
import statistics
import subprocess
import sys

PATTERNS = [re.compile(r"^seconds=([0-9.]+)", re.M), re.compile(r"^Loop time of ([0-9.]+)", re.M)]


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
    out_json, out_md, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    cases, words = [], sys.argv[4:]
    while words:
        cut = words.index("--") if "--" in words else len(words)
        name, pairs = words[0], words[1:cut]
        cases.append((name, list(zip(pairs[::2], pairs[1::2]))))
        words = words[cut + 1:]
    results = {}
    for name, commands in cases:
        times = {label: [] for label, _ in commands}
        errors = {}
        for _ in range(rounds):
            for label, cmd in commands:
                seconds, error = loop_seconds(cmd)
                if seconds is None:
                    errors[label] = error
                    print(f"bench: {name} {label}: {error}", file=sys.stderr)
                times[label].append(seconds)
        results[name] = {"commands": dict(commands), "seconds": times, "errors": errors}
    json.dump(results, open(out_json, "w"), indent=1)
    lines = ["| case | command | median s | ratio to the case's first: median of rounds (min-max) | runs |",
             "|---|---|---|---|---|"]
    for name, commands in cases:
        times = results[name]["seconds"]
        base_label = commands[0][0]
        for label, _ in commands:
            ok = [t for t in times[label] if t is not None]
            median = f"{statistics.median(ok):.4f}" if ok else "failed"
            ratio = ""
            if label != base_label:
                pairs = [a / b for a, b in zip(times[label], times[base_label])
                         if a is not None and b]
                ratio = (f"{statistics.median(pairs):.2f}x ({min(pairs):.2f}-{max(pairs):.2f})"
                         if pairs else "-")
            lines.append(f"| {name} | {label} | {median} | {ratio} | {len(ok)}/{len(times[label])} |")
    open(out_md, "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
