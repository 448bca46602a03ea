#!/usr/bin/env python3
"""An independent float64 reference for Hugging Face checkpoints of the Qwen3, Qwen2 (Qwen2.5) and Llama (3.x) families.

Only numpy and the standard library: the Java engine's parity tests run it to make tiny random checkpoints in Hugging
Face's exact layout and to score them. Deterministic for a given seed.

  make --dir D --family qwen3|qwen2|llama [--hidden 64 --layers 2 --heads 4 --kv-heads 2 --head-dim 24 --ffn 96
       --vocab 300 --tie|--no-tie --dtype bf16|fp16|fp32 --shards N --seed S --rope-scaling llama3 --rope-theta T
       --max-pos P --rms-eps E --attention-bias --mlp-bias --generation-config --config-style v4|v5]
  logprobs --dir D   stdin lines {"ids":[...]}          -> {"logprobs":[null, log p(ids[1]|ids[:1]), ...]}
  generate --dir D   stdin lines {"ids":[...],"new":N}  -> {"ids":[N greedy new tokens], "logprobs":[of each]}
  selftest           checks this file against itself (see selftest()); exit status 1 on failure

Where each part comes from in huggingface/transformers (src/transformers/...):
  config.json: models/{qwen3,qwen2,llama}/configuration_*.py (field names, per-family defaults); written like
    PretrainedConfig.to_json_string (indent 2, sorted keys). transformers 4.x writes rope_theta/rope_scaling and
    torch_dtype; 5.x writes rope_parameters {"rope_theta", "rope_type", ...} and dtype (--config-style v5).
    head_dim: Qwen2 has no such field (attention uses getattr(config, "head_dim", hidden // heads)); Qwen3's default
    is 128 and it is written; Llama's __post_init__ sets hidden // heads when absent.
  tensor names/shapes, biases: modeling_*.py: Qwen2Attention has bias=True on q/k/v and none on o_proj; Qwen3Attention
    and LlamaAttention use config.attention_bias for q/k/v/o; LlamaMLP uses config.mlp_bias. nn.Linear stores (out, in).
    *ForCausalLM._tied_weights_keys: lm_head.weight = model.embed_tokens.weight when tie_word_embeddings (not saved).
  files: modeling_utils.save_pretrained: model.safetensors, or model-0000k-of-0000N.safetensors plus
    model.safetensors.index.json {"metadata": {"total_size": bytes}, "weight_map": {name: file}} (indent 2, sorted).
    The safetensors format: u64 little-endian header size, JSON header {name: {dtype, shape, data_offsets}} with
    "__metadata__": {"format": "pt"}, padded with spaces to a multiple of 8, then the raw little-endian data.
  forward: *RMSNorm.forward (x / sqrt(mean(x^2) + eps) * weight; HF computes the norm in float32 and casts back);
    *Attention.forward (Qwen3: q_norm/k_norm RMSNorm over head_dim per head BEFORE rotary); rotate_half and
    apply_rotary_pos_emb (x * cos + rotate_half(x) * sin, halves [0, d/2) and [d/2, d), cos = cat(freqs, freqs));
    repeat_kv + eager_attention_forward (kv head j serves query heads j*g .. j*g+g-1, scaling head_dim ** -0.5, causal
    mask); *MLP.forward (down(silu(gate(x)) * up(x))); *DecoderLayer.forward (pre-norm residual blocks); *Model.forward
    (final norm); *ForCausalLM.forward (lm_head). Rotary: *RotaryEmbedding.compute_default_rope_parameters
    (inv_freq = 1 / theta ** (arange(0, d, 2) / d)) and modeling_rope_utils._compute_llama3_parameters.
Everything here is float64 on float64 widenings of the stored bf16/fp16/fp32 values (HF runs in the stored dtype).
"""
import argparse
import json
import math
import os
import struct
import sys
import tempfile

import numpy as np

ST_DTYPES = {"bf16": "BF16", "fp16": "F16", "fp32": "F32"}
TORCH_DTYPES = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}
ARCH = {"qwen3": "Qwen3ForCausalLM", "qwen2": "Qwen2ForCausalLM", "llama": "LlamaForCausalLM"}
LLAMA3_SCALING = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 8192}


# ---------------------------------------------------------------- dtypes and the safetensors format

def bf16_bits(x):
    """float32 -> bfloat16 bit patterns (uint16), round to nearest, ties to even (as torch's .to(torch.bfloat16))."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(np.asarray(x, dtype=np.float32)), np.uint16(0x7FC0), r)


def quantize(x, dtype):
    """The float64 array -> (raw little-endian bytes in dtype, the exact float64 value of what was stored)."""
    x32 = np.asarray(x, dtype=np.float32)
    if dtype == "bf16":
        bits = bf16_bits(x32).astype("<u2")
        return bits.tobytes(), decode(bits.tobytes(), "BF16", x.shape)
    if dtype == "fp16":
        h = x32.astype("<f2")
        return h.tobytes(), h.astype(np.float64)
    return x32.astype("<f4").tobytes(), x32.astype(np.float64)


def decode(raw, st_dtype, shape):
    """Raw safetensors data -> float64, widened exactly."""
    if st_dtype == "BF16":
        v = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
    elif st_dtype in ("F16", "F32", "F64"):
        v = np.frombuffer(raw, dtype={"F16": "<f2", "F32": "<f4", "F64": "<f8"}[st_dtype])
    else:
        raise ValueError("unsupported safetensors dtype " + st_dtype)
    return v.astype(np.float64).reshape(shape)


def write_safetensors(path, tensors):
    """tensors: list of (name, st_dtype, shape, raw bytes), written in name order."""
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, st_dtype, shape, raw in sorted(tensors):
        header[name] = {"dtype": st_dtype, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for _, _, _, raw in sorted(tensors):
            f.write(raw)


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    return {name: decode(data[8 + n + h["data_offsets"][0]:8 + n + h["data_offsets"][1]], h["dtype"], h["shape"])
            for name, h in header.items()}


def load(d):
    """(config dict, {tensor name: float64 array}) of a model folder, one file or shards with an index."""
    with open(os.path.join(d, "config.json")) as f:
        cfg = json.load(f)
    index = os.path.join(d, "model.safetensors.index.json")
    weights = {}
    if os.path.exists(index):
        with open(index) as f:
            weight_map = json.load(f)["weight_map"]
        for shard in sorted(set(weight_map.values())):
            weights.update(read_safetensors(os.path.join(d, shard)))
        missing = set(weight_map) - set(weights)
        if missing:
            raise ValueError("index names tensors that no shard holds: %s" % sorted(missing))
    else:
        weights = read_safetensors(os.path.join(d, "model.safetensors"))
    return cfg, weights


# ---------------------------------------------------------------- make

def config_json(a):
    head_dim = a.head_dim if a.family != "qwen2" else a.hidden // a.heads
    rope_scaling = dict(LLAMA3_SCALING) if a.rope_scaling == "llama3" else None
    cfg = {"architectures": [ARCH[a.family]], "model_type": a.family, "hidden_size": a.hidden,
           "intermediate_size": a.ffn, "num_hidden_layers": a.layers, "num_attention_heads": a.heads,
           "num_key_value_heads": a.kv_heads, "hidden_act": "silu", "max_position_embeddings": a.max_pos,
           "initializer_range": 0.02, "rms_norm_eps": a.rms_eps, "use_cache": True, "tie_word_embeddings": a.tie,
           "vocab_size": a.vocab, "attention_dropout": 0.0, "bos_token_id": a.vocab - 2, "eos_token_id": a.vocab - 1}
    if a.family == "llama":
        cfg.update(head_dim=head_dim, attention_bias=a.attention_bias, mlp_bias=a.mlp_bias, pretraining_tp=1)
    else:
        # Qwen2.5 ships sliding_window = max positions and Qwen3 null; with use_sliding_window false neither is used.
        cfg.update(use_sliding_window=False, sliding_window=a.max_pos if a.family == "qwen2" else None,
                   max_window_layers=a.layers)
        if a.family == "qwen3":
            cfg.update(head_dim=head_dim, attention_bias=a.attention_bias)
    if a.config_style == "v5":
        cfg.update(dtype=TORCH_DTYPES[a.dtype], transformers_version="5.0.0",
                   rope_parameters=dict(rope_scaling or {"rope_type": "default"}, rope_theta=a.rope_theta))
    else:
        cfg.update(torch_dtype=TORCH_DTYPES[a.dtype], transformers_version="4.51.3", rope_theta=a.rope_theta,
                   rope_scaling=rope_scaling)
    return cfg


def random_weights(cfg, seed):
    """float64 weights in Hugging Face's state-dict order; stds large enough that every tensor moves the output."""
    rng = np.random.default_rng(seed)
    h, f, v, L = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"], cfg["num_hidden_layers"]
    d, nh, nkv = head_dim_of(cfg), cfg["num_attention_heads"], cfg["num_key_value_heads"]
    qkv_bias, o_bias, mlp_bias = biases(cfg)
    w = {}

    def mat(name, out_dim, in_dim, std, bias=False):
        w[name + ".weight"] = rng.normal(0.0, std, (out_dim, in_dim))
        if bias:
            w[name + ".bias"] = rng.normal(0.0, 0.1, out_dim)

    def norm(name, n):
        w[name + ".weight"] = 1.0 + rng.normal(0.0, 0.2, n)

    w["model.embed_tokens.weight"] = rng.normal(0.0, 0.3, (v, h))
    for i in range(L):
        p = "model.layers.%d." % i
        mat(p + "self_attn.q_proj", nh * d, h, 0.15, qkv_bias)
        mat(p + "self_attn.k_proj", nkv * d, h, 0.15, qkv_bias)
        mat(p + "self_attn.v_proj", nkv * d, h, 0.2, qkv_bias)
        mat(p + "self_attn.o_proj", h, nh * d, 0.1, o_bias)
        if cfg["model_type"] == "qwen3":
            norm(p + "self_attn.q_norm", d)
            norm(p + "self_attn.k_norm", d)
        mat(p + "mlp.gate_proj", f, h, 0.15, mlp_bias)
        mat(p + "mlp.up_proj", f, h, 0.15, mlp_bias)
        mat(p + "mlp.down_proj", h, f, 0.02, mlp_bias)
        norm(p + "input_layernorm", h)
        norm(p + "post_attention_layernorm", h)
    norm("model.norm", h)
    if not tied(cfg):
        mat("lm_head", v, h, 0.3)
    return w


def write_checkpoint(d, cfg, weights, dtype, shards, generation_config=False):
    """Writes config.json and the weights (in state-dict order, cut into `shards` files of about equal size)."""
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "config.json"), "w") as f:
        f.write(json.dumps(cfg, indent=2, sort_keys=True) + "\n")
    if generation_config:
        gen = {"_from_model_config": True, "bos_token_id": cfg["bos_token_id"], "eos_token_id": cfg["eos_token_id"],
               "transformers_version": cfg["transformers_version"]}
        with open(os.path.join(d, "generation_config.json"), "w") as f:
            f.write(json.dumps(gen, indent=2, sort_keys=True) + "\n")
    items = [(name, quantize(x, dtype)[0], x.shape) for name, x in weights.items()]
    if not 1 <= shards <= len(items):
        raise ValueError("--shards must be between 1 and the number of tensors (%d)" % len(items))
    total = sum(len(raw) for _, raw, _ in items)
    groups, k, done = [[] for _ in range(shards)], 0, 0
    for i, (name, raw, shape) in enumerate(items):
        if groups[k] and k < min(shards - 1, done * shards // total):
            k += 1  # about total / shards bytes per file, in order
        k = max(k, shards - (len(items) - i))  # enough tensors left for every later file
        groups[k].append((name, ST_DTYPES[dtype], shape, raw))
        done += len(raw)
    if shards == 1:
        write_safetensors(os.path.join(d, "model.safetensors"), groups[0])
        return
    weight_map = {}
    for k, group in enumerate(groups):
        fname = "model-%05d-of-%05d.safetensors" % (k + 1, shards)
        write_safetensors(os.path.join(d, fname), group)
        weight_map.update((t[0], fname) for t in group)
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        index = {"metadata": {"total_size": total}, "weight_map": weight_map}
        f.write(json.dumps(index, indent=2, sort_keys=True) + "\n")


# ---------------------------------------------------------------- the forward pass

def head_dim_of(cfg):
    return cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]


def tied(cfg):
    return bool(cfg.get("tie_word_embeddings", False))  # all three families default to False


def biases(cfg):
    """(q/k/v bias, o_proj bias, mlp bias) as each family's modeling code builds its nn.Linear layers."""
    if cfg["model_type"] == "qwen2":
        return True, False, False
    ab = bool(cfg.get("attention_bias", False))
    return ab, ab, bool(cfg.get("mlp_bias", False)) and cfg["model_type"] == "llama"


def rope_params(cfg):
    """(theta, rope scaling dict or None) from a 4.x config (rope_theta, rope_scaling) or a 5.x one (rope_parameters)."""
    rp = cfg.get("rope_parameters")
    if rp:
        return rp.get("rope_theta", 10000.0), rp
    return cfg.get("rope_theta", 10000.0), cfg.get("rope_scaling")


def inv_freq(cfg):
    """compute_default_rope_parameters, then _compute_llama3_parameters when rope_type is llama3."""
    d = head_dim_of(cfg)
    theta, scaling = rope_params(cfg)
    inv = 1.0 / theta ** (np.arange(0, d, 2, dtype=np.float64) / d)
    kind = (scaling or {}).get("rope_type", (scaling or {}).get("type", "default"))
    if kind == "default":
        return inv
    if kind != "llama3":
        raise ValueError("rope_type %r is not supported by this reference" % kind)
    factor, lo, hi = scaling["factor"], scaling["low_freq_factor"], scaling["high_freq_factor"]
    old = scaling["original_max_position_embeddings"]
    wavelen = 2 * math.pi / inv
    scaled = np.where(wavelen > old / lo, inv / factor, inv)
    smooth = (old / wavelen - lo) / (hi - lo)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = ~(wavelen < old / hi) & ~(wavelen > old / lo)
    return np.where(medium, smoothed, scaled)


def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rope(x, cos, sin):
    """x: (heads, T, d); rotate_half pairs dimension i with i + d/2."""
    half = x.shape[-1] // 2
    rotated = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
    return x * cos + rotated * sin


def silu(x):
    return x * 0.5 * (1.0 + np.tanh(0.5 * x))  # = x * sigmoid(x), without overflow


def log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def forward(cfg, w, ids):
    """Log-probabilities (T, vocab) of the next token after each position, a full causal pass."""
    eps, d = cfg["rms_norm_eps"], head_dim_of(cfg)
    nh, nkv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
    ids = np.asarray(ids, dtype=np.int64)
    if ids.size and (ids.min() < 0 or ids.max() >= cfg["vocab_size"]):
        raise ValueError("token id outside [0, %d)" % cfg["vocab_size"])
    T = len(ids)
    freqs = np.arange(T, dtype=np.float64)[:, None] * inv_freq(cfg)[None, :]
    cos, sin = np.cos(np.concatenate([freqs, freqs], -1)), np.sin(np.concatenate([freqs, freqs], -1))
    future = np.triu(np.ones((T, T), dtype=bool), 1)

    def linear(name, x):
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    x = w["model.embed_tokens.weight"][ids]
    for i in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % i
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = linear(p + "self_attn.q_proj", h).reshape(T, nh, d).transpose(1, 0, 2)
        k = linear(p + "self_attn.k_proj", h).reshape(T, nkv, d).transpose(1, 0, 2)
        v = linear(p + "self_attn.v_proj", h).reshape(T, nkv, d).transpose(1, 0, 2)
        if cfg["model_type"] == "qwen3":
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        k, v = np.repeat(k, nh // nkv, axis=0), np.repeat(v, nh // nkv, axis=0)
        scores = np.where(future, -np.inf, q @ k.transpose(0, 2, 1) * d ** -0.5)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        attn = (probs / probs.sum(-1, keepdims=True)) @ v
        x = x + linear(p + "self_attn.o_proj", attn.transpose(1, 0, 2).reshape(T, nh * d))
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + linear(p + "mlp.down_proj", silu(linear(p + "mlp.gate_proj", h)) * linear(p + "mlp.up_proj", h))
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if tied(cfg) else w["lm_head.weight"]
    return log_softmax(x @ head.T)


def check_names(cfg, w):
    """The loaded tensors are exactly the ones the family's modules hold (a misnamed one would go unnoticed)."""
    if cfg.get("model_type") not in ARCH or cfg.get("hidden_act", "silu") != "silu" or cfg.get("use_sliding_window"):
        raise ValueError("unsupported: model_type %r, hidden_act %r, use_sliding_window %r" % (
            cfg.get("model_type"), cfg.get("hidden_act"), cfg.get("use_sliding_window")))
    expected = set(random_weights(dict(cfg, vocab_size=2, hidden_size=2, intermediate_size=2, head_dim=2,
                                       num_attention_heads=1, num_key_value_heads=1), 0))
    got = {n for n in w if not n.endswith("rotary_emb.inv_freq")}
    if got != expected:
        raise ValueError("tensors missing: %s; unexpected: %s" % (sorted(expected - got), sorted(got - expected)))


def token_logprobs(cfg, w, ids):
    if len(ids) == 0:
        return []
    lp = forward(cfg, w, ids)
    return [None] + [float(lp[t - 1, ids[t]]) for t in range(1, len(ids))]


def greedy(cfg, w, ids, n):
    ids, new, lps = list(ids), [], []
    if not ids:
        raise ValueError("generate needs at least one prompt token")
    for _ in range(n):
        last = forward(cfg, w, ids)[-1]
        tok = int(np.argmax(last))  # the first maximum: ties go to the lowest id
        ids.append(tok)
        new.append(tok)
        lps.append(float(last[tok]))
    return new, lps


# ---------------------------------------------------------------- command line

FAMILY_DEFAULTS = {"qwen3": dict(rope_theta=1000000.0, max_pos=40960, rms_eps=1e-6),
                   "qwen2": dict(rope_theta=1000000.0, max_pos=32768, rms_eps=1e-6),
                   "llama": dict(rope_theta=500000.0, max_pos=131072, rms_eps=1e-5)}


def make(a):
    for key, value in FAMILY_DEFAULTS[a.family].items():
        if getattr(a, key) is None:
            setattr(a, key, value)
    if a.family == "qwen2" and a.head_dim not in (None, a.hidden // a.heads):
        raise ValueError("qwen2 has no head_dim: it is hidden / heads = %d" % (a.hidden // a.heads))
    if a.head_dim is None:
        a.head_dim = 24 if a.family != "qwen2" else a.hidden // a.heads
    if a.heads % a.kv_heads or a.head_dim % 2:
        raise ValueError("heads must be a multiple of kv-heads, and head-dim even")
    if (a.family == "qwen2" and a.attention_bias) or (a.family != "llama" and a.mlp_bias):
        raise ValueError("qwen2's q/k/v biases are fixed by its model code; only llama has mlp_bias")
    cfg = config_json(a)
    write_checkpoint(a.dir, cfg, random_weights(cfg, a.seed), a.dtype, a.shards, a.generation_config)


def serve(a, answer):
    cfg, w = load(a.dir)
    check_names(cfg, w)
    for line in sys.stdin:
        if line.strip():
            sys.stdout.write(json.dumps(answer(cfg, w, json.loads(line))) + "\n")
            sys.stdout.flush()


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("make", help="write a tiny random checkpoint")
    m.add_argument("--dir", required=True)
    m.add_argument("--family", required=True, choices=sorted(ARCH))
    for flag, default in [("hidden", 64), ("layers", 2), ("heads", 4), ("kv-heads", 2), ("head-dim", None),
                          ("ffn", 96), ("vocab", 300), ("shards", 1), ("seed", 0), ("max-pos", None)]:
        m.add_argument("--" + flag, type=int, default=default)
    m.add_argument("--tie", action=argparse.BooleanOptionalAction, default=False)
    m.add_argument("--dtype", choices=sorted(ST_DTYPES), default="bf16")
    m.add_argument("--rope-scaling", choices=["none", "llama3"], default="none")
    m.add_argument("--rope-theta", type=float)
    m.add_argument("--rms-eps", type=float)
    m.add_argument("--attention-bias", action="store_true", help="qwen3/llama: biases on q, k, v and o")
    m.add_argument("--mlp-bias", action="store_true", help="llama: biases on gate, up and down")
    m.add_argument("--generation-config", action="store_true", help="also write generation_config.json")
    m.add_argument("--config-style", choices=["v4", "v5"], default="v4",
                   help="v4: rope_theta, rope_scaling, torch_dtype; v5: rope_parameters, dtype")
    for name in ("logprobs", "generate"):
        sub.add_parser(name).add_argument("--dir", required=True)
    sub.add_parser("selftest")
    a = parser.parse_args(argv)
    if a.command == "make":
        make(a)
    elif a.command == "logprobs":
        serve(a, lambda cfg, w, req: {"logprobs": token_logprobs(cfg, w, req["ids"])})
    elif a.command == "generate":
        serve(a, lambda cfg, w, req: dict(zip(("ids", "logprobs"), greedy(cfg, w, req["ids"], req["new"]))))
    else:
        return selftest()
    return 0


# ---------------------------------------------------------------- selftest

def naive_logprobs(cfg, w, ids):
    """A second, loop-by-loop forward pass: per position, per head, scalar rotary pairs (j, j + d/2), scalar llama3
    frequencies, query head h reading kv head h // (heads / kv_heads)."""
    eps, d, nh, nkv = cfg["rms_norm_eps"], head_dim_of(cfg), cfg["num_attention_heads"], cfg["num_key_value_heads"]
    theta, scaling = rope_params(cfg)
    freqs = []
    for j in range(d // 2):
        f = theta ** (-2.0 * j / d)
        if scaling and scaling.get("rope_type") == "llama3":
            old, lo, hi, factor = (scaling[k] for k in ("original_max_position_embeddings", "low_freq_factor",
                                                        "high_freq_factor", "factor"))
            wl = 2 * math.pi / f
            if wl > old / lo:
                f = f / factor
            elif wl >= old / hi:
                s = (old / wl - lo) / (hi - lo)
                f = (1 - s) * f / factor + s * f
        freqs.append(f)

    def norm(x, g):
        return [xi / math.sqrt(sum(v * v for v in x) / len(x) + eps) * gi for xi, gi in zip(x, g)]

    def lin(name, x):
        W = w[name + ".weight"]
        b = w.get(name + ".bias", np.zeros(W.shape[0]))
        return [sum(W[o, i] * x[i] for i in range(len(x))) + b[o] for o in range(W.shape[0])]

    def rot(x, t):
        out = list(x)
        for j in range(d // 2):
            c, s = math.cos(t * freqs[j]), math.sin(t * freqs[j])
            out[j], out[j + d // 2] = x[j] * c - x[j + d // 2] * s, x[j + d // 2] * c + x[j] * s
        return out

    xs = [list(w["model.embed_tokens.weight"][i]) for i in ids]
    for layer in range(cfg["num_hidden_layers"]):
        p = "model.layers.%d." % layer
        qs, ks, vs = [], [], []
        for t, x in enumerate(xs):
            h = norm(x, w[p + "input_layernorm.weight"])
            q, k, v = (lin(p + "self_attn.%s_proj" % n, h) for n in "qkv")
            q = [q[i * d:(i + 1) * d] for i in range(nh)]
            k = [k[i * d:(i + 1) * d] for i in range(nkv)]
            if cfg["model_type"] == "qwen3":
                q = [norm(head, w[p + "self_attn.q_norm.weight"]) for head in q]
                k = [norm(head, w[p + "self_attn.k_norm.weight"]) for head in k]
            qs.append([rot(head, t) for head in q])
            ks.append([rot(head, t) for head in k])
            vs.append([v[i * d:(i + 1) * d] for i in range(nkv)])
        new = []
        for t, x in enumerate(xs):
            out = []
            for hd in range(nh):
                kv = hd // (nh // nkv)
                s = [sum(a * b for a, b in zip(qs[t][hd], ks[u][kv])) / math.sqrt(d) for u in range(t + 1)]
                e = [math.exp(v - max(s)) for v in s]
                out += [sum(e[u] / sum(e) * vs[u][kv][j] for u in range(t + 1)) for j in range(d)]
            x = [a + b for a, b in zip(x, lin(p + "self_attn.o_proj", out))]
            h = norm(x, w[p + "post_attention_layernorm.weight"])
            g, up = lin(p + "mlp.gate_proj", h), lin(p + "mlp.up_proj", h)
            new.append([a + b for a, b in zip(x, lin(p + "mlp.down_proj",
                                                       [gi / (1 + math.exp(-gi)) * ui for gi, ui in zip(g, up)]))])
        xs = new
    head = w["model.embed_tokens.weight"] if tied(cfg) else w["lm_head.weight"]
    result = [None]
    for t in range(1, len(ids)):
        z = head @ np.array(norm(xs[t - 1], w["model.norm.weight"]))
        result.append(float(z[ids[t]] - max(z) - math.log(sum(math.exp(v - max(z)) for v in z))))
    return result


def selftest():
    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    def close(a, b, tol):
        return len(a) == len(b) and all((x is None and y is None) or abs(x - y) <= tol for x, y in zip(a, b))

    def made(d, *args):
        main(["make", "--dir", d] + list(args))
        return load(d)

    # bf16: ties to even, and every value lands on the nearest of its two bf16 neighbours.
    cases = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, -(1 + 2 ** -8 + 2 ** -20), 3.0e38], dtype=np.float32)
    check(list(bf16_bits(cases)) == [0x3F80, 0x3F82, 0xBF81, 0x7F62], "bf16 rounding of known cases")
    x = np.random.default_rng(1).normal(0, 1, 1000).astype(np.float32)
    r = decode(bf16_bits(x).astype("<u2").tobytes(), "BF16", x.shape)
    check(bool(np.all(np.abs(r - x) <= np.abs(x) * 2.0 ** -8)), "bf16 rounding error within half an ulp")

    rng = np.random.default_rng(7)
    seq = [int(t) for t in rng.integers(0, 300, 9)]
    with tempfile.TemporaryDirectory() as tmp:
        cfg, w = made(os.path.join(tmp, "a"), "--family", "qwen3", "--dtype", "bf16", "--shards", "3", "--seed", "5")
        d = os.path.join(tmp, "a")
        with open(os.path.join(d, "model.safetensors.index.json")) as f:
            index = json.load(f)
        files = sorted(set(index["weight_map"].values()))
        check(files == ["model-%05d-of-00003.safetensors" % k for k in (1, 2, 3)], "three shards, named as HF does")
        sizes = []
        for name in files:
            with open(os.path.join(d, name), "rb") as f:
                (n,) = struct.unpack("<Q", f.read(8))
                header = json.loads(f.read(n))
                sizes.append(os.path.getsize(os.path.join(d, name)) - 8 - n)
            ends = sorted(tuple(h["data_offsets"]) for k, h in header.items() if k != "__metadata__")
            check(n % 8 == 0 and header["__metadata__"] == {"format": "pt"} and ends[0][0] == 0
                  and all(a[1] == b[0] for a, b in zip(ends, ends[1:])) and ends[-1][1] == sizes[-1],
                  name + ": padded header, contiguous data")
        check(index["metadata"]["total_size"] == sum(sizes), "index total_size is the bytes of tensor data")
        check("lm_head.weight" in w and "model.layers.1.self_attn.q_norm.weight" in w, "qwen3 untied names")
        check_names(cfg, w)

        # (a) sharded bf16 and one fp32 file holding the same (bf16-rounded) values score the same.
        write_checkpoint(os.path.join(tmp, "b"), dict(cfg, torch_dtype="float32"), w, "fp32", 1)
        cfg_b, w_b = load(os.path.join(tmp, "b"))
        check(close(token_logprobs(cfg, w, seq), token_logprobs(cfg_b, w_b, seq), 1e-12),
              "(a) bf16 in 3 shards == the same values in one fp32 file")
        cfg_c, w_c = made(os.path.join(tmp, "c"), "--family", "qwen3", "--dtype", "fp32", "--seed", "5")
        diff = max(abs(a - b) for a, b in zip(token_logprobs(cfg, w, seq)[1:], token_logprobs(cfg_c, w_c, seq)[1:]))
        check(1e-6 < diff < 0.5, "unrounded fp32 weights differ a little from bf16 (%.2g)" % diff)

        variants = [("qwen3", ["--kv-heads", "2"]), ("qwen2", ["--tie", "--dtype", "fp16"]),
                    ("llama", ["--rope-scaling", "llama3", "--attention-bias", "--mlp-bias"]),
                    ("llama", ["--heads", "4", "--kv-heads", "4", "--config-style", "v5", "--max-pos", "64",
                               "--rope-theta", "10000"])]
        for i, (family, extra) in enumerate(variants):
            label = family + " " + " ".join(extra)
            cfg, w = made(os.path.join(tmp, "v%d" % i), "--family", family, "--seed", str(i), *extra)
            bias = sorted(n[len("model.layers.0."):] for n in w if n.startswith("model.layers.0.") and "bias" in n)
            want = {0: [], 1: ["self_attn.%s_proj.bias" % c for c in "kqv"], 3: []}.get(i, sorted(
                ["self_attn.%s_proj.bias" % c for c in "kqvo"] + ["mlp.%s_proj.bias" % c for c in ("down", "gate", "up")]))
            check(bias == want, "biases of %s: %s" % (label, bias))
            lp = token_logprobs(cfg, w, seq)
            # (b) causality: a prefix's log-probs do not depend on what follows.
            check(close(token_logprobs(cfg, w, seq[:5]), lp[:5], 1e-10), "(b) causal: " + label)
            # (c) the vectorised pass equals the loop-by-loop one (plain MHA when heads == kv-heads).
            check(close(naive_logprobs(cfg, w, seq), lp, 1e-9), "(c) equals the naive loops: " + label)
            # Every tensor matters: perturbing any one moves the log-probs.
            dead = [n for n in w if close(token_logprobs(cfg, dict(w, **{n: w[n] * 1.05 + 0.01}), seq), lp, 1e-7)]
            check(not dead, "every tensor moves the output: %s %s" % (label, dead))
            new, lps = greedy(cfg, w, seq[:4], 3)
            again = forward(cfg, w, seq[:4] + new)
            check(close(token_logprobs(cfg, w, seq[:4] + new)[4:], lps, 1e-10)
                  and all(int(np.argmax(again[3 + j])) == new[j] for j in range(3)), "greedy generate: " + label)
        with open(os.path.join(tmp, "v2", "config.json")) as f:
            llama = json.load(f)
        check(llama["rope_scaling"] == LLAMA3_SCALING and llama["head_dim"] == 24, "llama config fields")
        with open(os.path.join(tmp, "v1", "config.json")) as f:
            qwen2 = json.load(f)
        check("head_dim" not in qwen2 and "attention_bias" not in qwen2 and qwen2["tie_word_embeddings"],
              "qwen2 config has no head_dim or attention_bias")
        scaled = inv_freq(llama)
        plain = inv_freq(dict(llama, rope_scaling=None))
        check(scaled[0] == plain[0] and scaled[-1] == plain[-1] / 8 and np.any((scaled != plain) & (scaled != plain / 8)),
              "llama3 rope keeps high frequencies, divides low ones by 8, smooths between")
    print("selftest: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (ValueError, KeyError, OSError) as e:
        print("hf_checkpoint.py: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        sys.exit(2)
