"""The `small` preset on the project's first plain-PyTorch reference (../shared/peers/pytorch-ref), timed like
generate.py and grpo.py here, with the same JSON keys, so `swarm bench generate|learner --preset small` compares.

usage: peers_small.py generate|grpo --peers DIR [--runs 3 | --steps 20 --warmup 3] [--threads 2]

Uses that folder's model, generate() and batch/loss code as they are (imported, not copied); only the timing loop is
this folder's: no waiting for a quiet machine, since the caller alternates the two sides round by round.
"""
import argparse
import os
import sys
import time

import torch

from timing import emit, matmul_gflops, median, setup

NEW, PROMPT = 256, 16


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["generate", "grpo"])
    p.add_argument("--peers", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--warmup-rounds", type=int, default=0, help="untimed rounds over every batch size first")
    p.add_argument("--concurrency", default="1,32")
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.peers))
    import model as peers_model  # noqa: E402 (the peers' folder)
    setup(a.threads)
    c = peers_model.PRESETS["small"]
    m = peers_model.Transformer(c)
    n = peers_model.count_params(m)["total"]
    if a.what == "generate":
        import generate as peers_generate
        m.eval()
        levels = [int(x) for x in a.concurrency.split(",")]
        prompts = {b: torch.randint(0, c.vocab, (b, PROMPT), generator=torch.Generator().manual_seed(b)) for b in levels}
        peers_generate.generate(m, prompts[max(levels)], 8, True)
        for _ in range(a.warmup_rounds):
            for b in levels:
                peers_generate.generate(m, prompts[b], NEW, True)
        per = {b: [] for b in levels}
        for r in range(a.runs):
            for b in levels:
                t = time.perf_counter()
                peers_generate.generate(m, prompts[b], NEW, True)
                per[b].append(b * NEW / (time.perf_counter() - t))
                print("round %d/%d, batch %3d: %.0f tokens/s" % (r + 1, a.runs, b, per[b][-1]), flush=True)
        out = {"preset": "small", "parameters": n, "prompt_tokens": PROMPT, "new_tokens": NEW,
               "tokens_per_s": {str(b): median(v) for b, v in per.items()}}
        if 1 in per and 32 in per:
            out["batching_speedup_32"] = median([x / y for x, y in zip(per[32], per[1])])
        emit(out)
        return
    import grpo as peers_grpo
    ids, mask, adv, _ = peers_grpo.make_batch(c)
    opt = torch.optim.AdamW(m.parameters(), lr=peers_grpo.LR, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
    with torch.no_grad():
        old = peers_grpo.token_logps(m, ids)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = peers_grpo.dapo_loss(m, ids, mask, adv, old)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), peers_grpo.CLIP)
        opt.step()

    for _ in range(a.warmup):
        step()
    ms = []
    for _ in range(a.steps):
        t = time.perf_counter()
        step()
        ms.append((time.perf_counter() - t) * 1e3)
    tokens = peers_grpo.B * c.seq
    sec = median(ms) / 1e3
    emb = m.embed.weight.numel()
    flops = (6 * (n - emb) + 12 * c.n_layers * c.seq * c.d_model) * tokens
    mm = matmul_gflops()
    emit({"preset": "small", "params": n, "batch": peers_grpo.B, "seq": c.seq, "step_ms_median": median(ms),
          "step_ms_min": min(ms), "step_ms_max": max(ms), "tokens_per_s": tokens / sec, "gflops": flops / sec / 1e9,
          "matmul_gflops": mm, "matmul_fraction": flops / sec / 1e9 / mm})


if __name__ == "__main__":
    main()
