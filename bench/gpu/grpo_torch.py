#!/usr/bin/env python3
"""The learner's GRPO step written in plain PyTorch (eager), on a Qwen3-shaped Hugging Face folder: the target beside
which the engine's own step (dev.agentswarm.app.bench.GpuCheck) is read on the same GPU.

  grpo_torch.py --model DIR [--device cuda|cpu] [--precision fp32|tf32|bf16] [--attention eager|sdpa]
                [--score seqs.jsonl --scores-out torch.jsonl] [--steps 10 --warmup 3 --batch 16 --seq 256
                --generations 4 --micro-rows 16 --lr 1e-5] [--json result.json]

The step is GpuCheck's: B rows = B/G prompts x G generations, the prompt the first 40 % of T, completions of half to
all of the rest (the first full), right-padded with id 0; per token the log-prob of the next token (log_softmax over
the vocabulary, then a gather) and, without a graph, the entropy of the next-token distribution; the dapo loss with
clip-higher 0.2 / 0.28 against the detached log-probs (one iteration), the token sum divided by every completion token
of the batch; backward per micro-batch; global-norm clip 1.0; torch.optim.AdamW (0.9, 0.999, 1e-8, no decay) over every
parameter. Step times are taken between torch.cuda.synchronize() calls; tokens/s count B x T, padding included.

precision: fp32 (matmuls in IEEE fp32: TF32 off), tf32 (fp32 weights, TF32 matmuls), bf16 (fp32 weights and optimizer,
the forward under torch.autocast(bfloat16)). attention: eager (scores materialised, softmax, as the engine does) or
sdpa (torch.nn.functional.scaled_dot_product_attention, causal).

The model reads config.json and model.safetensors (or the shards of model.safetensors.index.json) in F32, BF16 or F16,
through the reader of ../pytorch-ref-qwen3/hf_model.py.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


# The safetensors reader of the CPU reference (float32 from F32, BF16 or F16; one file or an index's shards).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytorch-ref-qwen3"))
from hf_model import read_weights  # noqa: E402


# ---------------------------------------------------------------- the model, named as Hugging Face's Qwen3

class RMSNorm(nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Attention(nn.Module):
    def __init__(self, c, attention):
        super().__init__()
        h, self.nh, self.nkv, self.d = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
        bias = c.get("attention_bias", False)
        self.q_proj = nn.Linear(h, self.nh * self.d, bias=bias)
        self.k_proj = nn.Linear(h, self.nkv * self.d, bias=bias)
        self.v_proj = nn.Linear(h, self.nkv * self.d, bias=bias)
        self.o_proj = nn.Linear(self.nh * self.d, h, bias=bias)
        self.q_norm = RMSNorm(self.d, c["rms_norm_eps"])
        self.k_norm = RMSNorm(self.d, c["rms_norm_eps"])
        self.attention = attention

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q_norm(self.q_proj(x).view(b, t, self.nh, self.d)).transpose(1, 2)
        k = self.k_norm(self.k_proj(x).view(b, t, self.nkv, self.d)).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.nkv, self.d).transpose(1, 2)
        q = q * cos.to(q.dtype) + rotate_half(q) * sin.to(q.dtype)
        k = k * cos.to(k.dtype) + rotate_half(k) * sin.to(k.dtype)
        g = self.nh // self.nkv
        if self.attention == "sdpa":
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=g > 1)
        else:
            k, v = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
            s = (q @ k.transpose(-1, -2)) * self.d ** -0.5
            future = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
            s = s.masked_fill(future, float("-inf"))
            o = torch.softmax(s, dim=-1, dtype=torch.float32).to(q.dtype) @ v
        return self.o_proj(o.transpose(1, 2).reshape(b, t, self.nh * self.d))


class Mlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        h, f = c["hidden_size"], c["intermediate_size"]
        self.gate_proj = nn.Linear(h, f, bias=False)
        self.up_proj = nn.Linear(h, f, bias=False)
        self.down_proj = nn.Linear(f, h, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, c, attention):
        super().__init__()
        self.self_attn = Attention(c, attention)
        self.mlp = Mlp(c)
        self.input_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])
        self.post_attention_layernorm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class Inner(nn.Module):
    def __init__(self, c, attention):
        super().__init__()
        self.embed_tokens = nn.Embedding(c["vocab_size"], c["hidden_size"])
        self.layers = nn.ModuleList(Layer(c, attention) for _ in range(c["num_hidden_layers"]))
        self.norm = RMSNorm(c["hidden_size"], c["rms_norm_eps"])


class Qwen3(nn.Module):
    def __init__(self, c, attention):
        super().__init__()
        if c.get("model_type") != "qwen3":
            raise ValueError("a Qwen3 folder is expected, got model_type %r" % c.get("model_type"))
        self.model = Inner(c, attention)
        self.tied = c.get("tie_word_embeddings", False)
        self.lm_head = None if self.tied else nn.Linear(c["hidden_size"], c["vocab_size"], bias=False)
        d = c["head_dim"]
        theta = c.get("rope_theta") or (c.get("rope_parameters") or {}).get("rope_theta", 1e6)
        self.register_buffer("inv_freq", 1.0 / theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d), persistent=False)

    def forward(self, ids):
        t = ids.shape[1]
        freqs = torch.arange(t, dtype=torch.float64, device=ids.device)[:, None] * self.inv_freq[None, :]
        emb = torch.cat([freqs, freqs], -1)
        cos, sin = emb.cos().float(), emb.sin().float()
        x = self.model.embed_tokens(ids)
        for layer in self.model.layers:
            x = layer(x, cos, sin)
        x = self.model.norm(x)
        return F.linear(x, self.model.embed_tokens.weight if self.tied else self.lm_head.weight)


def token_logprobs(model, ids, entropy=False):
    logp = model(ids)[:, :-1].float().log_softmax(-1)
    taken = logp.gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    if not entropy:
        return taken, None
    with torch.no_grad():
        return taken, -(logp.exp() * logp).sum(-1)


# ---------------------------------------------------------------- the batch and the step

def reference_batch(rows, generations, seq, vocab, seed=1):
    g = torch.Generator().manual_seed(seed)
    p = seq - int(0.6 * seq)
    c = seq - p
    rewards = torch.rand(rows // generations, generations, generator=g, dtype=torch.float64)
    adv = ((rewards - rewards.mean(1, keepdim=True)) / (rewards.std(1, keepdim=True) + 1e-4)).reshape(-1)
    ids = torch.zeros(rows, seq, dtype=torch.long)
    mask = torch.zeros(rows, seq - 1)
    lengths = []
    for r in range(rows):
        if r % generations == 0:
            prompt = torch.randint(1, vocab, (p,), generator=g)
        n = c if r == 0 else int(torch.randint(c // 2, c + 1, (1,), generator=g))
        ids[r, :p] = prompt
        ids[r, p:p + n] = torch.randint(1, vocab, (n,), generator=g)
        mask[r, p - 1:p - 1 + n] = 1  # token j is predicted at j - 1
        lengths.append(p + n)
    return ids, mask, adv.float(), lengths


def micro_batches(ids, mask, adv, lengths, rows, device):
    out = []
    for i in range(0, ids.shape[0], rows):
        t = max(lengths[i:i + rows])  # padded to the longest row of the micro-batch, as the engine pads
        out.append((ids[i:i + rows, :t].to(device), mask[i:i + rows, :t - 1].to(device), adv[i:i + rows].to(device)))
    return out


def grpo_step(model, opt, batches, tokens, autocast):
    stats = torch.zeros(3, device=batches[0][0].device)
    for ids, mask, adv in batches:
        with autocast():
            logp, ent = token_logprobs(model, ids, entropy=True)
        old = logp.detach()
        ratio = torch.exp(logp - old)
        a = adv[:, None]
        per_tok = -torch.minimum(ratio * a, ratio.clamp(1 - 0.2, 1 + 0.28) * a)
        loss = (per_tok * mask).sum() / tokens
        loss.backward()
        stats += torch.stack([loss.detach(), (ent * mask).sum() / tokens, (ratio.detach() * mask).sum() / tokens])
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    opt.zero_grad(set_to_none=True)
    loss, ent, ratio = stats.tolist()
    return {"loss": loss, "grad_norm": float(norm), "entropy": ent}


def set_tf32(on):
    try:
        torch.backends.cuda.matmul.fp32_precision = "tf32" if on else "ieee"
        torch.backends.cudnn.conv.fp32_precision = "tf32" if on else "ieee"
    except (AttributeError, RuntimeError):
        torch.backends.cuda.matmul.allow_tf32 = on
        torch.backends.cudnn.allow_tf32 = on


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--device", default="cuda")
    p.add_argument("--precision", choices=["fp32", "tf32", "bf16"], default="fp32")
    p.add_argument("--attention", choices=["eager", "sdpa"], default="eager")
    p.add_argument("--score")
    p.add_argument("--scores-out")
    for flag, default in [("steps", 10), ("warmup", 3), ("batch", 16), ("seq", 256), ("generations", 4), ("micro-rows", 0)]:
        p.add_argument("--" + flag, type=int, default=default)
    p.add_argument("--lr", type=float, default=1e-5)
    p.add_argument("--json")
    a = p.parse_args(argv)
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if cuda:
        set_tf32(a.precision == "tf32")
    with open(os.path.join(a.model, "config.json")) as f:
        cfg = json.load(f)
    cfg.setdefault("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    f = {"torch": torch.__version__, "device": torch.cuda.get_device_name(dev) if cuda else "cpu",
         "precision": a.precision, "attention": a.attention}
    t0 = time.perf_counter()
    model = Qwen3(cfg, a.attention)
    weights = read_weights(a.model)
    missing, unexpected = model.load_state_dict(weights, strict=False)
    if unexpected or [m for m in missing if m != "lm_head.weight" or not model.tied]:
        raise SystemExit("weights do not match: missing %s, unexpected %s" % (missing, unexpected))
    del weights
    model.to(dev)
    f["load_s"] = round(time.perf_counter() - t0, 2)
    f["params"] = sum(x.numel() for x in model.parameters())
    autocast = (lambda: torch.autocast(dev.type, dtype=torch.bfloat16)) if a.precision == "bf16" else \
        (lambda: torch.autocast(dev.type, enabled=False))

    if a.score:
        with open(a.score) as fin:
            seqs = [json.loads(line)["ids"] for line in fin if line.strip()]
        lines = []
        with torch.no_grad():
            for s in seqs:
                with autocast():
                    lp, _ = token_logprobs(model, torch.tensor([s], device=dev))
                lines.append(json.dumps({"logprobs": [None] + lp[0].double().tolist()}))
        if a.scores_out:
            with open(a.scores_out, "w") as fout:
                fout.write("\n".join(lines) + "\n")
        else:
            print("\n".join(lines))

    if a.steps > 0:
        ids, mask, adv, lengths = reference_batch(a.batch, a.generations, a.seq, cfg["vocab_size"])
        batches = micro_batches(ids, mask, adv, lengths, a.micro_rows or a.batch, dev)
        tokens = float(mask.sum())
        f.update(batch=a.batch, seq=a.seq, micro_rows=a.micro_rows or a.batch, completion_tokens=int(tokens))
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)
        sync = torch.cuda.synchronize if cuda else (lambda: None)
        first = [grpo_step(model, opt, batches, tokens, autocast) for _ in range(a.warmup)][:2]
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        ms = []
        for _ in range(a.steps):
            sync()
            t = time.perf_counter()
            last = grpo_step(model, opt, batches, tokens, autocast)
            sync()
            ms.append((time.perf_counter() - t) * 1e3)
        s = sorted(ms)
        med = s[len(s) // 2] if len(s) % 2 else (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2
        n = a.batch * a.seq
        c = cfg
        nonemb = sum(x.numel() for name, x in model.named_parameters() if name != "model.embed_tokens.weight")
        flops_per_token = 6.0 * nonemb + 12.0 * c["num_hidden_layers"] * a.seq * c["num_attention_heads"] * c["head_dim"]
        f.update(step_ms=[round(x, 2) for x in ms], step_ms_median=round(med, 2),
                 step_ms_p10=round(s[round(0.1 * (len(s) - 1))], 2), step_ms_p90=round(s[round(0.9 * (len(s) - 1))], 2),
                 step_ms_min=round(s[0], 2), step_ms_max=round(s[-1], 2), tokens_per_s=round(n / (med / 1e3), 1),
                 model_tflops=round(flops_per_token * n / (med / 1e3) / 1e12, 2), first_steps=first, last_step=last)
        if cuda:
            f["peak_allocated_mib"] = round(torch.cuda.max_memory_allocated() / 2 ** 20)
            f["peak_reserved_mib"] = round(torch.cuda.max_memory_reserved() / 2 ** 20)
        fwd = []
        with torch.no_grad():
            for i in range(6):
                sync()
                t = time.perf_counter()
                for ids_, _, _ in batches:
                    with autocast():
                        token_logprobs(model, ids_)[0].sum().item()
                if i:
                    fwd.append((time.perf_counter() - t) * 1e3)
        f["scoring_forward_ms_median"] = round(sorted(fwd)[len(fwd) // 2], 2)
    out = json.dumps(f, indent=1)
    if a.json:
        with open(a.json, "w") as fo:
            fo.write(out + "\n")
    print(out, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
