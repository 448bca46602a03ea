"""Greedy decoding with a KV cache on a Hugging Face folder: the workload of `swarm bench generate --model DIR`.

usage: generate.py --model DIR [--prompt 16] [--tokens 256] [--concurrency 1,32] [--runs 3] [--warmup-rounds 0] [--threads 2]
                   [--repeat-kv] [--load-only]

Prompts of 16 random ids within the vocabulary, 256 new tokens each, greedy, no stop; one prefill of the prompts into
preallocated K/V buffers, then one-token steps, the LM head on the last position only. Rounds visit every batch size
in turn (after one short warm-up); tokens/s per batch size is the median over rounds, batching_speedup_32 the median
of the rounds' ratios. Prints one JSON line last, with the keys of `swarm bench generate --json`.
"""
import argparse
import time

import torch

from timing import emit, median, rss_bytes, setup
from hf_model import load, logprob_checksum


@torch.inference_mode()
def generate(model, prompt, new):
    cache = model.new_cache(prompt.shape[0], prompt.shape[1] + new)
    h = model.hidden(prompt, cache, 0)
    ids = prompt
    for i in range(new):
        nxt = model.logits(h[:, -1]).argmax(-1, keepdim=True)
        ids = torch.cat([ids, nxt], 1)
        if i < new - 1:
            h = model.hidden(nxt, cache, ids.shape[1] - 1)
    return ids


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--prompt", type=int, default=16)
    p.add_argument("--tokens", type=int, default=256)
    p.add_argument("--concurrency", default="1,32")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--warmup-rounds", type=int, default=0, help="untimed rounds over every batch size first")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeat-kv", action="store_true", help="transformers' literal repeat_kv copy of K/V")
    p.add_argument("--load-only", action="store_true")
    a = p.parse_args()
    setup(a.threads)
    rss0 = rss_bytes()
    t0 = time.perf_counter()
    c, model = load(a.model, a.prompt + a.tokens, a.repeat_kv)
    model.eval()
    load_ms = (time.perf_counter() - t0) * 1e3
    out = {"model": a.model, "family": c.arch, "parameters": c.params(), "prompt_tokens": a.prompt,
           "new_tokens": a.tokens, "load_ms": round(load_ms, 1), "rss_bytes_before_model": rss0,
           "rss_bytes_after_load": rss_bytes(), "logprob_checksum": logprob_checksum(model)}
    if a.load_only:
        emit(out)
        return
    levels = [int(x) for x in a.concurrency.split(",")]
    prompts = {b: torch.randint(0, c.vocab, (b, a.prompt), generator=torch.Generator().manual_seed(b)) for b in levels}
    generate(model, prompts[max(levels)], 8)                           # warm-up
    for _ in range(a.warmup_rounds):
        for b in levels:
            generate(model, prompts[b], a.tokens)
    per = {b: [] for b in levels}
    for r in range(a.runs):
        for b in levels:
            t = time.perf_counter()
            generate(model, prompts[b], a.tokens)
            per[b].append(b * a.tokens / (time.perf_counter() - t))
            print("round %d/%d, batch %3d: %.0f tokens/s" % (r + 1, a.runs, b, per[b][-1]), flush=True)
    out["tokens_per_s"] = {str(b): median(v) for b, v in per.items()}
    for target in (32, 64):
        if 1 in per and target in per:
            out["batching_speedup_%d" % target] = median([x / y for x, y in zip(per[target], per[1])])
    out["rss_bytes_serving_%d" % max(levels)] = rss_bytes()
    emit(out)


if __name__ == "__main__":
    main()
