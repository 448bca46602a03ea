"""Runs swarm's bench and the PyTorch reference alternately, round by round, and reports per-round ratios.

usage: side_by_side.py --rounds 3 --out results.jsonl PAIR [PAIR ...]
  PAIR = "label::kind::OURS COMMAND::REFERENCE COMMAND", kind = generate (tokens/s at each batch size) or learner
  (tokens/s of the GRPO step); each command prints one JSON object as its last line.

The machine may be shared: before each command it waits (up to --max-wait s) until other processes use under
--quiet of the machine's CPU, and it records the share they took while the command ran (foreign_cpu) and the load
average. Within a round the two sides run back to back, their order swapped every other round; the ratio reported
is the median over rounds of ours / reference.
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time

HZ, NCPU = os.sysconf("SC_CLK_TCK"), os.cpu_count()


def busy():
    with open("/proc/stat") as f:
        v = list(map(int, f.readline().split()[1:9]))
    return sum(v) - v[3] - v[4]


def children():
    t = os.times()
    return (t.children_user + t.children_system) * HZ


def wait_quiet(limit, max_wait):
    t0 = time.time()
    while time.time() - t0 < max_wait:
        b0 = busy(); time.sleep(2); share = (busy() - b0) / HZ / 2 / NCPU
        if share < limit:
            break
    return time.time() - t0


def run(cmd, a):
    waited = wait_quiet(a.quiet, a.max_wait)
    b0, c0, t0 = busy(), children(), time.time()
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    wall = time.time() - t0
    foreign = max(0.0, ((busy() - b0) - (children() - c0)) / HZ / wall / NCPU)
    if p.returncode != 0:
        sys.exit("failed (%d): %s\n%s" % (p.returncode, cmd, p.stderr[-3000:] + p.stdout[-2000:]))
    last = [l for l in p.stdout.strip().splitlines() if l.startswith("{")][-1]
    return {"json": json.loads(last), "wall_s": round(wall, 1), "waited_s": round(waited, 1),
            "foreign_cpu": round(foreign, 3), "loadavg": os.getloadavg()}


def figures(kind, j):
    if kind == "generate":
        return {"b" + k: v for k, v in j["tokens_per_s"].items()}
    return {"step_tokens_per_s": j["tokens_per_s"], "step_ms": j["step_ms_median"]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("pairs", nargs="+")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", default="side_by_side.jsonl")
    p.add_argument("--quiet", type=float, default=0.25, help="foreign CPU share to wait under (0..1)")
    p.add_argument("--max-wait", type=float, default=120)
    a = p.parse_args()
    pairs = [x.split("::") for x in a.pairs]
    ratios = {}
    with open(a.out, "a") as log:
        for r in range(a.rounds):
            for label, kind, ours, ref in pairs:
                order = [("ours", ours), ("ref", ref)] if r % 2 == 0 else [("ref", ref), ("ours", ours)]
                got = {}
                for side, cmd in order:
                    res = run(cmd, a)
                    got[side] = res
                    rec = dict(res, round=r + 1, label=label, side=side, cmd=cmd, figures=figures(kind, res["json"]))
                    log.write(json.dumps(rec) + "\n"); log.flush()
                    print("round %d %-14s %-4s %s  foreign cpu %.0f%%, load %.1f, waited %.0f s" % (
                        r + 1, label, side, {k: round(v, 1) for k, v in rec["figures"].items()},
                        100 * res["foreign_cpu"], res["loadavg"][0], res["waited_s"]), flush=True)
                fo, fr = figures(kind, got["ours"]["json"]), figures(kind, got["ref"]["json"])
                for k in fo:
                    if k in fr and k != "step_ms":
                        ratios.setdefault((label, k), []).append(fo[k] / fr[k])
    print("\nours / reference, median of per-round ratios (the rounds' ratios):")
    for (label, k), v in ratios.items():
        print("  %-14s %-18s %.2fx  (%s)" % (label, k, statistics.median(v), ", ".join("%.2f" % x for x in v)))


if __name__ == "__main__":
    main()
