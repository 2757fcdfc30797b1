#!/usr/bin/env python3
"""Measurements hyperfine cannot take, for bench/run. Standard library only.

  probe.py rss OUT.json -- CMD...        peak RSS of every process in CMD's tree, by name
  probe.py failure OUT.json -- CMD...    rank death (time in {stamp}) to CMD's exit
  probe.py restart OUT.json [--loop] -- CMD...
                                         rank death to the restarted ranks' MPI_Init

Each call runs CMD once and writes one JSON object to OUT.json; bench/run repeats the calls
and bench/report.py aggregates them. '{stamp}' in CMD is replaced by a fresh file name.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

POLL_SECONDS = 0.002  # the RSS poll period: short, but leaves the CPU to the job


def children_of(pid):
    """The direct children of pid, over all its threads (/proc/PID/task/TID/children)."""
    kids = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    kids.extend(int(k) for k in f.read().split())
            except OSError:
                pass
    except OSError:
        pass
    return kids


def name_and_hwm(pid):
    """(Name, VmHWM in kB) of a live process, or None once it is gone or a zombie."""
    try:
        with open(f"/proc/{pid}/status") as f:
            name, hwm = None, None
            for line in f:
                if line.startswith("Name:"):
                    name = line.split(None, 1)[1].strip()
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                    break
            return (name, hwm) if name and hwm is not None else None
    except OSError:
        return None


def measure_rss(cmd):
    """Runs cmd; polls the VmHWM (peak RSS) of every process in its tree until it exits.

    VmHWM only grows, so the last reading of a process is its peak up to that moment; what it
    may add in its last poll period before exiting is missed (the figures are lower bounds).
    /usr/bin/time cannot separate launcher and agent: a parent's ru_maxrss includes the peak of
    every descendant it reaped, ranks included."""
    root = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    peak_by_pid = {}  # pid -> (name, kB)
    while root.poll() is None:
        todo, seen = [root.pid], set()
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            found = name_and_hwm(pid)
            if found:
                name, kb = found
                if kb >= peak_by_pid.get(pid, ("", 0))[1]:
                    peak_by_pid[pid] = (name, kb)
            todo.extend(children_of(pid))
        time.sleep(POLL_SECONDS)
    by_name = {}  # name -> largest peak among processes of that name
    for name, kb in peak_by_pid.values():
        by_name[name] = max(by_name.get(name, 0), kb)
    return {"exit_code": root.returncode, "peak_kb": by_name}


def with_stamp(cmd, stamp):
    return [arg.replace("{stamp}", stamp) for arg in cmd]


def measure_failure(cmd):
    """Runs cmd (a job whose rank 1 writes CLOCK_REALTIME ns to {stamp} and segfaults);
    returns the seconds from that stamp to cmd's exit as seen by waitpid here."""
    with tempfile.TemporaryDirectory(prefix="bench-fail-") as tmp:
        stamp = os.path.join(tmp, "stamp")
        proc = subprocess.Popen(with_stamp(cmd, stamp), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        proc.wait()
        exited_ns = time.time_ns()
        try:
            with open(stamp) as f:
                died_ns = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            return {"exit_code": proc.returncode, "error": "the rank wrote no death stamp"}
    return {"exit_code": proc.returncode, "seconds": (exited_ns - died_ns) / 1e9}


def measure_restart(cmd, loop):
    """Runs cmd, whose ranks log 'death NS' and 'up NS' lines to {stamp} (bench/apps/restart.c).
    With loop, cmd is rerun after a failure, as a shell 'until mpirun ...; do :; done' would:
    the cold restart a launcher without restarts leaves to its caller."""
    with tempfile.TemporaryDirectory(prefix="bench-restart-") as tmp:
        stamp = os.path.join(tmp, "stamp")
        for _attempt in range(2 if loop else 1):
            proc = subprocess.run(with_stamp(cmd, stamp), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, check=False)
            if proc.returncode == 0:
                break
        deaths, ups, starts = [], [], []
        try:
            with open(stamp) as f:
                for line in f:
                    what, ns = line.split()
                    {"death": deaths, "up": ups, "start": starts}[what].append(int(ns))
        except (OSError, ValueError):
            pass
    if proc.returncode != 0 or len(deaths) != 1 or not ups:
        return {"exit_code": proc.returncode,
                "error": f"expected one death and a successful rerun, got {len(deaths)} "
                         f"death(s), {len(ups)} up(s), exit code {proc.returncode}"}
    result = {"exit_code": 0, "seconds": (max(ups) - deaths[0]) / 1e9}
    if starts:
        result["to_running_seconds"] = (max(starts) - deaths[0]) / 1e9
    return result


def main(argv):
    if len(argv) < 4 or "--" not in argv:
        sys.exit(__doc__)
    mode, out = argv[1], argv[2]
    split = argv.index("--")
    flags, cmd = argv[3:split], argv[split + 1:]
    if mode == "rss":
        result = measure_rss(cmd)
    elif mode == "failure":
        result = measure_failure(cmd)
    elif mode == "restart":
        result = measure_restart(cmd, loop="--loop" in flags)
    else:
        sys.exit(__doc__)
    with open(out, "w") as f:
        json.dump(result, f)
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
