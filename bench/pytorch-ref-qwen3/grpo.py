"""One GRPO learner step on a Hugging Face folder: the workload of `swarm bench learner --model DIR`.

usage: grpo.py --model DIR [--batch 16] [--generations 4] [--seq 256] [--steps 20] [--warmup 3] [--threads 2]
               [--repeat-kv]

The batch is swarm's LearnerBenchmark's (and ../shared/peers/pytorch-ref/grpo.py's): B = 16 = 4 prompts x 4
generations, T = 256, the prompt the first 40 %, completions of half to all of the rest (the first one full, so every
step runs B x T tokens), right-padded; advantages scaled by group from random rewards. The step: forward over B x T,
TRL's loss_type="dapo" (clip-higher 0.2 / 0.28, KL off, / completion tokens of the batch) against the detached
log-probs of the start (one iteration, no extra forward), backward, global-norm clip 1.0, AdamW (0.9, 0.999, 1e-8,
no decay, lr 1e-4): full fine-tuning. Prints one JSON line last, with the keys of `swarm bench learner --json`.
"""
import argparse
import time

import torch

from timing import emit, matmul_gflops, median, setup
from hf_model import load, logprob_checksum

EPS_LOW, EPS_HIGH, LR, CLIP = 0.2, 0.28, 1e-4, 1.0


def make_batch(vocab, B, G, T, seed=1):
    g = torch.Generator().manual_seed(seed)
    P = T - int(0.6 * T)
    C = T - P
    prompts = torch.randint(1, vocab, (B // G, P), generator=g).repeat_interleave(G, 0)
    comp = torch.randint(1, vocab, (B, C), generator=g)
    lens = torch.randint(C // 2, C + 1, (B,), generator=g)
    lens[0] = C
    comp[torch.arange(C)[None] >= lens[:, None]] = 0
    ids = torch.cat([prompts, comp], 1)
    tgt = torch.arange(1, T)
    mask = ((tgt[None] >= P) & (tgt[None] < P + lens[:, None])).float()
    r = torch.rand(B, generator=g).view(-1, G)
    adv = ((r - r.mean(1, keepdim=True)) / (r.std(1, keepdim=True) + 1e-4)).view(-1)
    return ids, mask, adv


def token_logps(model, ids):
    logits = model(ids)[:, :-1]
    return logits.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1) - logits.logsumexp(-1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--generations", type=int, default=4)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat-kv", action="store_true")
    a = p.parse_args()
    setup(a.threads)
    c, model = load(a.model, a.seq, a.repeat_kv)
    checksum = logprob_checksum(model)
    ids, mask, adv = make_batch(c.vocab, a.batch, a.generations, a.seq)
    params = [p for p in model.parameters() if p.requires_grad]  # full fine-tuning: every weight
    opt = torch.optim.AdamW(params, lr=LR, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
    with torch.no_grad():
        old = token_logps(model, ids)

    def step():
        opt.zero_grad(set_to_none=True)
        logp = token_logps(model, ids)
        coef1 = torch.exp(logp - old)
        coef2 = coef1.clamp(1 - EPS_LOW, 1 + EPS_HIGH)
        per_tok = -torch.min(coef1 * adv[:, None], coef2 * adv[:, None])
        loss = (per_tok * mask).sum() / mask.sum()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, CLIP)
        opt.step()
        return loss.item()

    for _ in range(a.warmup):
        step()
    ms = []
    for i in range(a.steps):
        t = time.perf_counter()
        step()
        ms.append((time.perf_counter() - t) * 1e3)
        print("step %d/%d: %.1f ms" % (i + 1, a.steps, ms[-1]), flush=True)
    tokens = a.batch * a.seq
    sec = median(ms) / 1e3
    gflops = c.training_flops_per_token(a.seq) * tokens / sec / 1e9
    mm = matmul_gflops()
    emit({"model": a.model, "family": c.arch, "params": c.params(), "batch": a.batch, "seq": a.seq,
          "generations": a.generations, "completion_tokens": int(mask.sum()), "tuning": "full",
          "step_ms_median": median(ms), "step_ms_min": min(ms), "step_ms_max": max(ms),
          "tokens_per_s": tokens / sec, "gflops": gflops, "matmul_gflops": mm, "matmul_fraction": gflops / mm,
          "logprob_checksum": checksum})


if __name__ == "__main__":
    main()
