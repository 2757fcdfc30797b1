#!/usr/bin/env python3
"""bench/report.py RESULTS_DIR: the table and target verdicts for one bench/run. Stdlib only.

Reads what bench/run left in RESULTS_DIR (machine.json, raw/*.json from hyperfine and
bench/lib/probe.py, raw/bytes.*, raw/*.txt) and prints markdown: one section per case of issue
#6 with medians, spreads (min-max over the runs) and ratios mpilaunch / peer, then the targets.
A ratio below 1 means mpilaunch took less time; for throughput the ratio is of rates, so above 1
means mpilaunch was faster. Failed runs are left out of the statistics and counted.
"""
import glob
import json
import os
import re
import statistics
import sys


class Runs:
    """The successful samples of one measurement, and how many runs failed."""

    def __init__(self, values=(), failed=0):
        self.values = sorted(values)
        self.failed = failed

    @property
    def ok(self):
        return bool(self.values)

    @property
    def median(self):
        return statistics.median(self.values) if self.values else None


def load_json(path):
    with open(path) as f:
        return json.load(f)


def load_timed(raw, group, cpu=False):
    """{command id: Runs} from raw/GROUP.r.json for every round r >= 1 (0 is the warm-up): wall
    times, or with `cpu` the CPU time (user + system) of the command's whole process tree, which
    hyperfine records per command (each file holds one run of it)."""
    times, failed = {}, {}
    for path in glob.glob(os.path.join(raw, f"{group}.*.json")):
        if int(path.rsplit(".", 2)[1]) == 0:
            continue
        for result in load_json(path)["results"]:
            name = result["command"]
            codes = result.get("exit_codes") or [0] * len(result["times"])
            samples = result["times"]
            if cpu:
                samples = [result.get("user", 0) + result.get("system", 0)] * len(samples)
            for t, code in zip(samples, codes):
                if code == 0:
                    times.setdefault(name, []).append(t)
                else:
                    failed[name] = failed.get(name, 0) + 1
    return {n: Runs(times.get(n, []), failed.get(n, 0)) for n in set(times) | set(failed)}


def load_probe(raw, name, field):
    """Runs of one probe.py measurement: raw/NAME.i.json, the value at `field`."""
    values, failed = [], 0
    for path in glob.glob(os.path.join(raw, f"{name}.*.json")):
        doc = load_json(path)
        if "error" in doc or field not in doc:
            failed += 1
        else:
            values.append(doc[field])
    return Runs(values, failed)


def ms(runs):
    """'123 ms (110-140)', the median and the min-max spread; or why there is no figure."""
    if runs is None:
        return "not run"
    if not runs.ok:
        return f"failed ({runs.failed} runs)" if runs.failed else "not run"
    lo, hi = runs.values[0] * 1e3, runs.values[-1] * 1e3
    text = f"{runs.median * 1e3:.0f} ms"
    if len(runs.values) > 1:
        text += f" ({lo:.0f}–{hi:.0f})"
    if runs.failed:
        text += f", {runs.failed} failed"
    return text


def ratio(a, b):
    """a / b of two medians (or plain numbers), as '0.42×', or '–' without both."""
    a = a.median if isinstance(a, Runs) else a
    b = b.median if isinstance(b, Runs) else b
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r):
    return "–" if r is None else f"{r:.2f}×"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


class Report:
    def __init__(self, out_dir):
        self.out = out_dir
        self.raw = os.path.join(out_dir, "raw")
        self.targets = []  # (target, measured text, met: True/False/None)
        self.lines = []

    def say(self, *text):
        self.lines.extend(text)

    def target(self, name, value, limit, better, shown):
        """One target of issue #6: met when value is <= limit (better='low') or >= (high)."""
        if value is None:
            self.targets.append((name, "not measured", None))
            return
        met = value <= limit if better == "low" else value >= limit
        self.targets.append((name, shown, met))

    # ------------------------------------------------------------ sections
    def machine(self):
        path = os.path.join(self.out, "machine.json")
        if not os.path.exists(path):
            return
        m = load_json(path)
        elapsed = ""
        if os.path.exists(os.path.join(self.out, "elapsed_seconds")):
            elapsed = open(os.path.join(self.out, "elapsed_seconds")).read().strip()
        self.say(
            "## Machine",
            "",
            f"- {m['nproc']} CPUs ({m['cpu']}), {m['mem_gib']} GiB memory, {m['os']}, "
            f"kernel {m['kernel']}",
            f"- {m['mpilaunch']}; {m['mpirun']}; MPICH Hydra {m['hydra']}; {m['hyperfine']}",
            f"- load average at start: {' '.join(m['loadavg_start'])}"
            + f"; CPU pressure at start (some, avg60): {m.get('cpu_pressure_start', '?')} %"
            + (f"; bench time {elapsed} s" if elapsed else ""),
            "",
        )

    def launch(self):
        t = load_timed(self.raw, "launch")
        if not t:
            return
        self.say("## 1. Launch latency (wall time, median (min–max))", "")
        rows = []
        for key, label in (("true", "`-n 2 /bin/true`"), ("hello2", "`-n 2` hello + Allreduce"),
                           ("hello8", "`-n 8` hello, oversubscribed")):
            ml, om, hy = t.get(f"ml-{key}"), t.get(f"ompi-{key}"), t.get(f"hydra-{key}")
            rows.append([label, ms(ml), ms(om), ms(hy), fmt_ratio(ratio(ml, om)),
                         fmt_ratio(ratio(ml, hy))])
        self.say(table(["job", "mpilaunch", "mpirun", "Hydra (MPICH build)", "ml / mpirun",
                        "ml / Hydra"], rows), "")
        r = ratio(t.get("ml-true"), t.get("ompi-true"))
        self.target("`-n 2 /bin/true` ≤ 0.25× mpirun", r, 0.25, "low", fmt_ratio(r))
        for key, label in (("hello2", "2"), ("hello8", "8")):
            r = ratio(t.get(f"ml-{key}"), t.get(f"ompi-{key}"))
            self.target(f"Open MPI hello `-n {label}` ≤ 0.8× mpirun", r, 0.8, "low",
                        fmt_ratio(r))
        # The same MPICH program under mpilaunch's PMI server and under Hydra (issue #7).
        rows = []
        for key, label in (("hello2", "`-n 2` MPICH hello"), ("hello8", "`-n 8` MPICH hello")):
            ml, hy = t.get(f"mlm-{key}"), t.get(f"hydra-{key}")
            rows.append([label, ms(ml), ms(hy), fmt_ratio(ratio(ml, hy))])
        if any(t.get(f"mlm-{key}") for key in ("hello2", "hello8")):
            self.say(table(["MPICH job", "mpilaunch (PMI)", "mpiexec.hydra", "ml / Hydra"], rows),
                     "")
        for key, label in (("hello2", "2"), ("hello8", "8")):
            r = ratio(t.get(f"mlm-{key}"), t.get(f"hydra-{key}"))
            self.target(f"MPICH hello `-n {label}` ≤ 1.0× mpiexec.hydra (issue #7)", r, 1.0, "low",
                        fmt_ratio(r))

    def vnodes(self):
        t = load_timed(self.raw, "vnodes")
        if not t:
            return
        self.say("## 2. Virtual nodes (mpilaunch only; mpirun has no equivalent)", "")
        rows = []
        for n in (3, 8):
            one, many = t.get(f"ml-1x{n}"), t.get(f"ml-{n}x1")
            rows.append([f"{n} ranks", ms(one), ms(many), fmt_ratio(ratio(many, one))])
        self.say(table(["Open MPI hello", "1 node (isolated mode)", "1 rank on each of N "
                        "virtual nodes", "virtual / single"], rows), "")

    def ssh(self):
        path = os.path.join(self.raw, "ssh.txt")
        modes = {mode: load_timed(self.raw, f"ssh-{mode}") for mode in ("rc", "norc")}
        if not modes["rc"]:
            if os.path.exists(path):
                self.say("## 3. SSH, 3 nodes × 2 ranks", "", open(path).read().strip(), "")
            self.target("3 ssh nodes ≤ 0.5× mpirun", None, 0.5, "low", "")
            return
        self.say("## 3. SSH, 3 nodes × 2 ranks (loopback sshd on 127.0.0.1-3)", "",
                 "Two throw-away sshds, alike but for the login shell: *as configured* runs "
                 "the user's ~/.bashrc for every command, as sshd does; *no ~/.bashrc* sets "
                 "SHLVL=1 for the session, so bash skips it, leaving the launchers' own cost. "
                 "Login = one bare OpenSSH `ssh node1 true`, for scale.", "")
        rows = []
        labels = {"rc": "as configured", "norc": "no ~/.bashrc"}
        for mode, t in modes.items():
            if not t:
                continue
            for key, job in (("true", "`/bin/true`"), ("hello", "Open MPI hello")):
                ml, om = t.get(f"ml-{key}"), t.get(f"ompi-{key}")
                rows.append([labels[mode], job, ms(t.get("login")), ms(ml), ms(om),
                             fmt_ratio(ratio(ml, om))])
        self.say(table(["login shell", "job", "login", "mpilaunch `--launcher=ssh`",
                        "mpirun (ssh; hello with btl self,tcp)", "ml / mpirun"], rows), "")
        for mode, t in modes.items():
            if not t:
                continue
            for key, job, issue in (("true", "/bin/true", "#4"), ("hello", "hello", "#6")):
                r = ratio(t.get(f"ml-{key}"), t.get(f"ompi-{key}"))
                self.target(f"3 ssh nodes, {job}, login shell {labels[mode]} ≤ 0.5× mpirun "
                            f"(issue {issue})", r, 0.5, "low", fmt_ratio(r))
        up = load_timed(self.raw, "sshup")
        if not up:
            return
        self.say("### Bring-up scale: `-n N /bin/true`, one rank on each of N ssh hosts", "")
        rows = []
        for n in (1, 2, 4, 8):
            ml, om = up.get(f"ml-up{n}"), up.get(f"ompi-up{n}")
            rows.append([str(n), ms(ml), ms(om), fmt_ratio(ratio(ml, om)),
                         fmt_ratio(ratio(ml, up.get("ml-up1"))),
                         fmt_ratio(ratio(om, up.get("ompi-up1")))])
        self.say(table(["hosts", "mpilaunch", "mpirun", "ml / mpirun", "ml growth vs 1",
                        "mpirun growth vs 1"], rows), "")
        g = ratio(up.get("ml-up8"), up.get("ml-up1"))
        self.target("ssh bring-up growth 1 → 8 hosts sub-linear (< 8×, issue #4)", g, 8.0, "low",
                    fmt_ratio(g))

    def flood(self):
        t = load_timed(self.raw, "flood")
        if not t:
            return
        self.say("## 4. Output forwarding (stdout into `wc -c`)", "",
                 "Rate = bytes / (median time of the flood − median time of the same command "
                 "writing 0 bytes): the forwarding rate without the launch cost. Wall = the "
                 "flood's own median time.", "")
        rows, rates = [], {}
        peers = (("pipe", "direct pipe"), ("ml", "mpilaunch"), ("ompi", "mpirun"),
                 ("hydra", "Hydra (MPICH)"))
        for shape, label in (("1x200", "1 rank × 200 MB"), ("2x100", "2 ranks × 100 MB")):
            zero = "1x0" if shape == "1x200" else "2x0"
            row = [label]
            for who, _ in peers:
                full, empty = t.get(f"{who}-{shape}"), t.get(f"{who}-{zero}")
                rate = None
                if full and full.ok and empty and empty.ok and full.median > empty.median:
                    rate = 200e6 / (full.median - empty.median) / 1e6
                rates[(who, shape)] = rate
                row.append((f"{rate:.0f} MB/s" if rate else "–") + f"<br>wall {ms(full)}")
            for peer in ("pipe", "ompi", "hydra"):
                row.append(fmt_ratio(ratio(rates[("ml", shape)], rates[(peer, shape)])))
            row.append(self.bytes_check(shape))
            rows.append(row)
        self.say(table(["stream"] + [p[1] for p in peers] +
                       ["ml / pipe", "ml / mpirun", "ml / Hydra", "bytes"], rows), "")
        for shape in ("1x200", "2x100"):
            r = ratio(rates[("ml", shape)], rates[("pipe", shape)])
            self.target(f"stdout {shape.replace('x', ' × ')} MB ≥ 0.8× direct pipe", r, 0.8,
                        "high", fmt_ratio(r))
            r = ratio(rates[("ml", shape)], rates[("ompi", shape)])
            self.target(f"stdout {shape.replace('x', ' × ')} MB ≥ 10× mpirun", r, 10, "high",
                        fmt_ratio(r))

    def bytes_check(self, shape):
        """'all N' when every run of every launcher delivered 200 MB; else what went wrong."""
        bad, runs = [], 0
        for path in glob.glob(os.path.join(self.raw, f"bytes.*-{shape}")):
            who = path.rsplit(".", 1)[1].split("-")[0]
            for line in open(path):
                runs += 1
                if line.strip() != "200000000":
                    bad.append(f"{who}: {line.strip()}")
        if not runs:
            return "–"
        return f"{runs}/{runs} runs: 200000000" if not bad else "LOST " + ", ".join(bad)

    def memory(self):
        if not glob.glob(os.path.join(self.raw, "rss-*.json")):
            return
        self.say("## 5. Peak RSS (VmHWM, MiB, median over runs; largest process of each name)",
                 "")
        roles = (("ml", "mpilaunch", "launcher"), ("ml", "mpilaunch-agent", "agent"),
                 ("ompi", "mpirun", "mpirun"), ("ompi", "orted", "orted"),
                 ("hydra", "mpiexec.hydra", "mpiexec.hydra"),
                 ("hydra", "hydra_pmi_proxy", "hydra_pmi_proxy"))
        rows, worst = [], {}
        for who, name, label in roles:
            row = [label]
            for case in ("hello", "flood"):
                peaks = []
                for path in glob.glob(os.path.join(self.raw, f"rss-{who}-{case}.*.json")):
                    kb = load_json(path)["peak_kb"].get(name)
                    if kb is not None:
                        peaks.append(kb / 1024)
                row.append(f"{statistics.median(peaks):.1f}" if peaks else "–")
                if peaks and who == "ml":
                    worst[label] = max(worst.get(label, 0), statistics.median(peaks))
            if row[1:] != ["–", "–"]:
                rows.append(row)
        self.say(table(["process", "case 1: hello `-n 2`", "case 4: 1 rank × 200 MB"], rows),
                 "", "(mpirun runs the ranks itself on one node: no orted. Ranks not shown.)",
                 "")
        for label in ("launcher", "agent"):
            value = worst.get(label)
            self.target(f"{label} peak RSS ≤ 10 MiB", value, 10, "low",
                        f"{value:.1f} MiB" if value else "")

    def failure(self):
        runs = {w: load_probe(self.raw, f"fail-{w}", "seconds") for w in ("ml", "ompi", "hydra")}
        if not any(r.ok or r.failed for r in runs.values()):
            return
        self.say("## 6. Failure detection (rank 1 segfaults; its death to the launcher's exit)",
                 "")
        self.say(table(["mpilaunch", "mpirun", "Hydra (MPICH build)", "ml / mpirun",
                        "ml / Hydra"],
                       [[ms(runs["ml"]), ms(runs["ompi"]), ms(runs["hydra"]),
                         fmt_ratio(ratio(runs["ml"], runs["ompi"])),
                         fmt_ratio(ratio(runs["ml"], runs["hydra"]))]]), "")
        m = runs["ml"].median
        self.target("failure to exit ≤ 100 ms", m, 0.1, "low",
                    f"{m * 1e3:.0f} ms" if m is not None else "")

    def restart(self):
        path = os.path.join(self.raw, "restart.txt")
        if os.path.exists(path):
            self.say("## 7. Restart latency", "", open(path).read().strip(), "")
            return
        ml = load_probe(self.raw, "restart-ml", "seconds")
        om = load_probe(self.raw, "restart-ompi", "seconds")
        if not (ml.ok or ml.failed or om.ok or om.failed):
            return
        ml_run = load_probe(self.raw, "restart-ml", "to_running_seconds")
        om_run = load_probe(self.raw, "restart-ompi", "to_running_seconds")
        self.say("## 7. Restart latency (rank death to every rank of the next attempt running, "
                 "and past MPI_Init; 2 ranks, no backoff)", "")
        self.say(table(["to", "mpilaunch `--max-restarts 1` (warm agents)",
                        "mpirun run again by a shell loop", "ml / mpirun"],
                       [["ranks running (first line of main)", ms(ml_run), ms(om_run),
                         fmt_ratio(ratio(ml_run, om_run))],
                        ["ranks past MPI_Init", ms(ml), ms(om), fmt_ratio(ratio(ml, om))]]), "")
        m = ml_run.median
        self.target("restart to ranks running ≤ 50 ms + backoff (issue #8)", m, 0.05, "low",
                    f"{m * 1e3:.0f} ms" if m is not None else "")

    def wireup(self):
        t = load_timed(self.raw, "wireup")
        if not t:
            return
        self.say("## 8. Wire-up scale (PMIx Init, Put, Commit, Fence+collect, Get, Finalize)",
                 "")
        rows = []
        cpu = load_timed(self.raw, "wireup", cpu=True)
        base_ml, base_om = t.get("ml-16"), t.get("ompi-16")
        for n, agents in ((16, 1), (64, 4), (128, 16), (256, 32)):
            ml, om = t.get(f"ml-{n}"), t.get(f"ompi-{n}")
            rows.append([n, agents, ms(ml), ms(om), fmt_ratio(ratio(ml, om)),
                         fmt_ratio(ratio(ml, base_ml)), fmt_ratio(ratio(om, base_om)),
                         ms(cpu.get(f"ml-{n}")), ms(cpu.get(f"ompi-{n}"))])
        self.say(table(["processes", "mpilaunch agents", "mpilaunch", "mpirun (1 node)",
                        "ml / mpirun", "ml growth vs 16", "mpirun growth vs 16",
                        "mpilaunch CPU", "mpirun CPU"], rows), "",
                 "CPU = user + system time of the whole job, the clients included (hyperfine's "
                 "figures for the command's process tree). On 2 CPUs a job cannot take less wall "
                 "time than half its CPU time; the clients' share is the same under both "
                 "launchers (see \"What limits each missed target\" in docs/benchmarks.md).", "")
        r = ratio(t.get("ml-256"), t.get("ompi-256"))
        self.target("wire-up at 256 processes ≤ 0.5× mpirun", r, 0.5, "low", fmt_ratio(r))
        # The issue asks for growth sub-linear in agents (32× more from 16 to 256 processes);
        # the stricter reading, sub-linear in processes (16× more), is shown too.
        g = ratio(t.get("ml-256"), base_ml)
        self.target("wire-up growth 1 → 32 agents (16 → 256 processes) sub-linear in agents "
                    "(< 32×)", g, 32, "low", fmt_ratio(g))
        self.target("wire-up growth 16 → 256 processes, stricter: sub-linear in processes "
                    "(< 16×)", g, 16, "low", fmt_ratio(g))

    def wrap(self):
        t = load_timed(self.raw, "wrap")
        if not t:
            return
        direct, cat, wrap = t.get("ompi-direct"), t.get("ompi-cat"), t.get("ml-wrap")
        self.say("## 9. Wrap mode: mpirun streaming 100 MB, parsed line by line", "",
                 "Pass-through = mpirun's output copied by one more process (`| cat`), the "
                 "extra hop the wrap adds; the wrap also parses every line.", "")
        self.say(table(["mpirun alone", "mpirun \\| cat (pass-through)",
                        "mpilaunch --engine=ompi", "wrap / pass-through", "bytes"],
                       [[ms(direct), ms(cat), ms(wrap), fmt_ratio(ratio(wrap, cat)),
                         self.wrap_bytes()]]), "")
        r = ratio(wrap, cat)
        self.target("wrap-mode parsing ≤ 1.05× plain pass-through (issue #5)", r, 1.05, "low",
                    fmt_ratio(r))

    def wrap_bytes(self):
        lines = []
        for who in ("ompi-direct", "ompi-cat", "ml-wrap"):
            path = os.path.join(self.raw, f"bytes.{who}")
            if os.path.exists(path):
                lines += [l.strip() for l in open(path)]
        bad = [l for l in lines if l != "100000000"]
        if not lines:
            return "–"
        return f"{len(lines)}/{len(lines)} runs: 100000000" if not bad else "LOST " + ", ".join(bad)

    def slurm(self):
        path = os.path.join(self.raw, "slurm.txt")
        t = load_timed(self.raw, "slurm")
        if not t:
            if os.path.exists(path):
                self.say("## 11. Slurm", "", open(path).read().strip(), "")
            return
        ml, srun, srun_ob1 = t.get("ml-srun"), t.get("srun-pmix"), t.get("srun-pmix-ob1")
        self.say("## 11. Slurm: Open MPI hello `-n 2` inside one allocation (test Slurm, one "
                 "node)", "")
        self.say(table(["mpilaunch (agents via srun)", "srun --mpi=pmix",
                        "srun --mpi=pmix, ranks with OMPI_MCA_pml=ob1", "ml / srun",
                        "ml / srun (same pml)"],
                       [[ms(ml), ms(srun), ms(srun_ob1), fmt_ratio(ratio(ml, srun)),
                         fmt_ratio(ratio(ml, srun_ob1))]]), "")

    def stacks(self):
        rows = []
        for tool in ("eu-stack", "gdb"):
            t = load_timed(self.raw, f"stacks-{tool}").get(f"ml-stacks-{tool}")
            note = os.path.join(self.raw, f"stacks-{tool}.txt")
            tree = os.path.join(self.raw, f"stacks-{tool}.tree")
            if t is None and not os.path.exists(note):
                continue
            shown = ms(t) if t is not None else open(note).read().strip()
            first = open(tree).read().splitlines()[1:2] if os.path.exists(tree) else []
            rows.append([tool, shown, first[0].strip() if first else "–"])
            if tool == "eu-stack":  # the agents' default tool
                self.target("stacks of 16 ranks on 4 virtual nodes ≤ 2 s (issue #25)",
                            t.median if t is not None and t.ok else None, 2.0, "low",
                            ms(t) if t is not None else "not measured")
        if not rows:
            return
        self.say("## 12. `mpilaunch stacks`: 16 ranks on 4 virtual nodes, one rank in MPI_Recv",
                 "")
        self.say(table(["stack tool", "request to merged tree", "the odd group"], rows), "")

    def verdicts(self):
        self.say("## Targets (issue #6)", "")
        mark = {True: "met", False: "**missed**", None: "not measured"}
        self.say(table(["target", "measured", "verdict"],
                       [[n, shown, mark[met]] for n, shown, met in self.targets]), "")

    def render(self):
        self.say("# mpilaunch benchmark", "")
        for section in (self.machine, self.launch, self.vnodes, self.ssh, self.flood,
                        self.memory, self.failure, self.restart, self.wireup, self.wrap,
                        self.slurm, self.stacks, self.verdicts):
            section()
        return "\n".join(self.lines)


def main(argv):
    if len(argv) != 2 or not os.path.isdir(os.path.join(argv[1], "raw")):
        sys.exit(__doc__)
    text = Report(argv[1]).render()
    print(text)
    with open(os.path.join(argv[1], "report.md"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main(sys.argv)
