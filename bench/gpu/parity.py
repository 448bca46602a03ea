#!/usr/bin/env python3
"""Sequences for the log-prob parity check, and the comparison of two scorers' answers.

  seqs --vocab V --out F [--lengths 8,64,200,256] [--seed 7]   writes lines {"ids":[...]} (random ids in [1, V))
  compare REF OURS [--label L]                                   both files of lines {"logprobs":[null, ...]}, in the
                                                                 same order; prints max and mean |diff| as JSON
Only the standard library.
"""
import argparse
import json
import random
import sys


def seqs(a):
    rng = random.Random(a.seed)
    with open(a.out, "w") as f:
        for n in (int(x) for x in a.lengths.split(",")):
            f.write(json.dumps({"ids": [rng.randrange(1, a.vocab) for _ in range(n)]}) + "\n")


def compare(a):
    def rows(path):
        with open(path) as f:
            return [json.loads(line)["logprobs"] for line in f if line.strip()]

    ref, ours = rows(a.ref), rows(a.ours)
    if len(ref) != len(ours):
        raise SystemExit("%s has %d sequences, %s has %d" % (a.ref, len(ref), a.ours, len(ours)))
    worst, total, n, lowest = 0.0, 0.0, 0, 0.0
    for r, o in zip(ref, ours):
        if len(r) != len(o):
            raise SystemExit("lengths differ: %d against %d" % (len(r), len(o)))
        for x, y in zip(r, o):
            if x is None or y is None:
                continue
            d = abs(x - y)
            worst, total, n, lowest = max(worst, d), total + d, n + 1, min(lowest, x)
    out = {"label": a.label, "sequences": len(ref), "tokens": n, "max_abs_diff": worst,
           "mean_abs_diff": total / max(1, n), "lowest_ref_logprob": lowest}
    print(json.dumps(out))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("seqs")
    s.add_argument("--vocab", type=int, required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--lengths", default="8,64,200,256")
    s.add_argument("--seed", type=int, default=7)
    c = sub.add_parser("compare")
    c.add_argument("ref")
    c.add_argument("ours")
    c.add_argument("--label", default="")
    a = p.parse_args(argv)
    seqs(a) if a.command == "seqs" else compare(a)


if __name__ == "__main__":
    main(sys.argv[1:])
