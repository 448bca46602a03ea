"""A Hugging Face Qwen3 / Qwen2 / Llama decoder in plain PyTorch eager (works on torch 1.13), loaded from a model folder.

Written from transformers' modeling_qwen3.py (eager attention path), the shape `swarm` runs:
  - Qwen3RMSNorm: x * rsqrt(mean(x^2) + eps) * weight, computed in float32;
  - Qwen3Attention: q = q_norm(q_proj(x) per head), k = k_norm(k_proj(x) per head) -- RMSNorm over head_dim, BEFORE
    rotary (Qwen3 only); v = v_proj(x); rotary in the half-split layout (x * cos + rotate_half(x) * sin, with
    inv_freq = 1 / theta ** (arange(0, head_dim, 2) / head_dim) and cos = cat(freqs, freqs)); grouped-query
    attention: kv head j serves query heads j*g .. j*g+g-1; scores * head_dim ** -0.5, causal mask, softmax; o_proj;
  - Qwen3MLP: down_proj(silu(gate_proj(x)) * up_proj(x));
  - Qwen3DecoderLayer: pre-norm residual blocks (input_layernorm, post_attention_layernorm);
  - Qwen3Model: embed_tokens, layers, final norm; Qwen3ForCausalLM: lm_head (= embed_tokens.weight when tied).
Qwen2 (biases on q/k/v, no q/k norm) and Llama (attention_bias/mlp_bias, no rope scaling) take the same code.

One difference in form, none in value: transformers' eager attention copies K and V g times (repeat_kv) before the
score matmul; here the g query heads of one kv head are stacked as rows of one matmul against the shared K/V, which
computes the same sums without the copy (what a reasonable eager implementation would do; `--repeat-kv` on the
scripts takes transformers' literal path instead).

Weights are read from config.json + model.safetensors (or shards with model.safetensors.index.json) by the small
reader below (Debian has no `safetensors` package): BF16 via a view of int16 as torch.bfloat16, F16, F32; everything
is widened to float32, as `swarm`'s engine holds it.
"""
import json
import math
import mmap
import os
import struct
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

ST_DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32}
warnings.filterwarnings("ignore", message="The given buffer is not writable")
ARCH = {"Qwen3ForCausalLM": "qwen3", "Qwen2ForCausalLM": "qwen2", "LlamaForCausalLM": "llama"}


# ---------------------------------------------------------------- safetensors


def read_safetensors(path):
    """{name: float32 tensor} of one safetensors file (u64 LE header size, JSON header, raw LE data)."""
    out = {}
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        header.pop("__metadata__", None)
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        base = 8 + n
        for name, h in header.items():
            begin, end = h["data_offsets"]
            dtype = ST_DTYPES.get(h["dtype"])
            if dtype is None:
                raise ValueError("%s: tensor %s has dtype %s (BF16, F16, F32 are read)" % (path, name, h["dtype"]))
            raw = memoryview(mm)[base + begin:base + end]
            if dtype is torch.bfloat16:  # torch 1.13 cannot read bfloat16 from a buffer: read int16 and view it
                t = torch.frombuffer(raw, dtype=torch.int16).view(torch.bfloat16)
            else:
                t = torch.frombuffer(raw, dtype=dtype)
            out[name] = t.to(torch.float32).reshape(h["shape"])  # a copy: the map can close
            del raw, t
    finally:
        try:
            mm.close()
        except BufferError:  # a view still alive somewhere; the map goes with the process
            pass
    return out


def read_weights(d):
    index = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    w = {}
    for name in files:
        w.update(read_safetensors(os.path.join(d, name)))
    return w


# ---------------------------------------------------------------- config


class Config:
    def __init__(self, j, context=None):
        arch = j["architectures"][0]
        if arch not in ARCH:
            raise ValueError("architecture %s is not modelled here" % arch)
        self.arch, self.family = arch, ARCH[arch]
        self.hidden, self.layers = j["hidden_size"], j["num_hidden_layers"]
        self.heads = j["num_attention_heads"]
        self.kv_heads = j.get("num_key_value_heads") or self.heads
        self.head_dim = j.get("head_dim") or self.hidden // self.heads
        self.ffn, self.vocab = j["intermediate_size"], j["vocab_size"]
        self.eps = j.get("rms_norm_eps", 1e-6)
        rope = j.get("rope_parameters") or {}
        self.theta = j.get("rope_theta", rope.get("rope_theta", 10000.0))
        scaling = j.get("rope_scaling") or rope
        if scaling.get("rope_type", scaling.get("type", "default")) not in ("default",):
            raise ValueError("rope scaling %s is not modelled here" % scaling)
        if j.get("use_sliding_window"):
            raise ValueError("sliding-window attention is not modelled here")
        self.tied = j.get("tie_word_embeddings", False)
        self.qk_norm = self.family == "qwen3"
        self.qkv_bias = self.family == "qwen2" or bool(j.get("attention_bias"))
        self.o_bias = self.family != "qwen2" and bool(j.get("attention_bias"))
        self.mlp_bias = self.family == "llama" and bool(j.get("mlp_bias"))
        self.context = max(context or j.get("max_position_embeddings", 4096), CHECKSUM_TOKENS)

    def non_embedding_params(self):
        """As swarm's ModelConfig counts them (an untied head counts: every token multiplies it)."""
        proj = (self.heads + 2 * self.kv_heads) * self.head_dim
        per = proj * self.hidden + self.heads * self.head_dim * self.hidden + 3 * self.hidden * self.ffn + 2 * self.hidden
        per += (proj if self.qkv_bias else 0) + (2 * self.head_dim if self.qk_norm else 0)
        return self.layers * per + self.hidden + (0 if self.tied else self.vocab * self.hidden)

    def params(self):
        return self.vocab * self.hidden + self.non_embedding_params()

    def training_flops_per_token(self, t):
        """swarm's ModelConfig.trainingFlopsPerToken: 6 x non-embedding params + 12 x layers x t x heads x head_dim."""
        return 6.0 * self.non_embedding_params() + 12.0 * self.layers * t * self.heads * self.head_dim


# ---------------------------------------------------------------- model


class RMSNorm(nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(n)), eps

    def forward(self, x):
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, c, repeat_kv=False):
        super().__init__()
        self.h, self.kv, self.dh, self.repeat_kv = c.heads, c.kv_heads, c.head_dim, repeat_kv
        self.g = c.heads // c.kv_heads
        self.q_proj = nn.Linear(c.hidden, c.heads * c.head_dim, bias=c.qkv_bias)
        self.k_proj = nn.Linear(c.hidden, c.kv_heads * c.head_dim, bias=c.qkv_bias)
        self.v_proj = nn.Linear(c.hidden, c.kv_heads * c.head_dim, bias=c.qkv_bias)
        self.o_proj = nn.Linear(c.heads * c.head_dim, c.hidden, bias=c.o_bias)
        self.q_norm = RMSNorm(c.head_dim, c.eps) if c.qk_norm else None
        self.k_norm = RMSNorm(c.head_dim, c.eps) if c.qk_norm else None
        self.scaling = c.head_dim ** -0.5

    def forward(self, x, cos, sin, cache=None, pos=0):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.h, self.dh)
        k = self.k_proj(x).view(B, T, self.kv, self.dh)
        if self.q_norm is not None:  # Qwen3: per-head RMSNorm before rotary
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = q.transpose(1, 2), k.transpose(1, 2)                  # [B, H, T, dh], [B, KV, T, dh]
        v = self.v_proj(x).view(B, T, self.kv, self.dh).transpose(1, 2)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        if cache is not None:  # preallocated [B, KV, max_len, dh] buffers, written in place
            cache[0][:, :, pos:pos + T], cache[1][:, :, pos:pos + T] = k, v
            k, v = cache[0][:, :, :pos + T], cache[1][:, :, :pos + T]
        S = k.shape[2]
        mask = torch.ones(T, S, dtype=torch.bool).triu(S - T + 1) if T > 1 else None  # query i sees keys <= pos + i
        if self.repeat_kv:  # transformers' eager_attention_forward, literally
            k = k[:, :, None].expand(B, self.kv, self.g, S, self.dh).reshape(B, self.h, S, self.dh)
            v = v[:, :, None].expand(B, self.kv, self.g, S, self.dh).reshape(B, self.h, S, self.dh)
            att = (q @ k.transpose(-2, -1)) * self.scaling
            if mask is not None:
                att = att.masked_fill(mask, float("-inf"))
            y = att.softmax(-1, dtype=torch.float32) @ v                 # [B, H, T, dh]
        else:  # the g query heads of a kv head as rows of one matmul against the shared K/V
            qg = q.reshape(B, self.kv, self.g * T, self.dh)
            att = (qg @ k.transpose(-2, -1)) * self.scaling             # [B, KV, g*T, S]
            if mask is not None:
                att = att.view(B, self.kv, self.g, T, S).masked_fill(mask, float("-inf")).view(B, self.kv, self.g * T, S)
            y = (att.softmax(-1, dtype=torch.float32) @ v).view(B, self.h, T, self.dh)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, self.h * self.dh))


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden, c.ffn, bias=c.mlp_bias)
        self.up_proj = nn.Linear(c.hidden, c.ffn, bias=c.mlp_bias)
        self.down_proj = nn.Linear(c.ffn, c.hidden, bias=c.mlp_bias)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, c, repeat_kv=False):
        super().__init__()
        self.input_layernorm, self.self_attn = RMSNorm(c.hidden, c.eps), Attention(c, repeat_kv)
        self.post_attention_layernorm, self.mlp = RMSNorm(c.hidden, c.eps), MLP(c)

    def forward(self, x, cos, sin, cache=None, pos=0):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, cache, pos)
        return x + self.mlp(self.post_attention_layernorm(x))


class Inner(nn.Module):
    def __init__(self, c, repeat_kv=False):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab, c.hidden)
        self.layers = nn.ModuleList(Layer(c, repeat_kv) for _ in range(c.layers))
        self.norm = RMSNorm(c.hidden, c.eps)


class CausalLM(nn.Module):
    """Parameter names are transformers' (model.layers.N.self_attn.q_proj.weight, ..., lm_head.weight)."""

    def __init__(self, c, repeat_kv=False):
        super().__init__()
        self.c = c
        self.model = Inner(c, repeat_kv)
        self.lm_head = None if c.tied else nn.Linear(c.hidden, c.vocab, bias=False)
        inv = 1.0 / (c.theta ** (torch.arange(0, c.head_dim, 2, dtype=torch.int64).float() / c.head_dim))
        ang = torch.outer(torch.arange(c.context).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)                           # [context, dh]
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def hidden(self, ids, cache=None, pos=0):
        """Final-norm hidden states [B, T, hidden]; cache: (k, v) per layer; pos: absolute position of ids[:, 0]."""
        T = ids.shape[1]
        cos, sin = self.cos[pos:pos + T], self.sin[pos:pos + T]
        x = self.model.embed_tokens(ids)
        for i, layer in enumerate(self.model.layers):
            x = layer(x, cos, sin, None if cache is None else cache[i], pos)
        return self.model.norm(x)

    def logits(self, h):
        w = self.model.embed_tokens.weight if self.lm_head is None else self.lm_head.weight
        return h @ w.t()

    def forward(self, ids):
        return self.logits(self.hidden(ids))

    def new_cache(self, batch, max_len):
        c = self.c
        return [(torch.zeros(batch, c.kv_heads, max_len, c.head_dim), torch.zeros(batch, c.kv_heads, max_len, c.head_dim))
                for _ in range(c.layers)]


def load(d, context=None, repeat_kv=False):
    """(Config, CausalLM) of a Hugging Face model folder; every tensor must be there, in its shape, and no other."""
    with open(os.path.join(d, "config.json")) as f:
        c = Config(json.load(f), context)
    model = CausalLM(c, repeat_kv)
    w = read_weights(d)
    state = model.state_dict()
    missing = sorted(set(state) - set(w))
    extra = sorted(set(w) - set(state))
    if missing or extra:
        raise ValueError("weights do not match config.json: missing %s, unexpected %s" % (missing[:5], extra[:5]))
    for name, t in w.items():
        if tuple(t.shape) != tuple(state[name].shape):
            raise ValueError("%s is %s, the model wants %s" % (name, tuple(t.shape), tuple(state[name].shape)))
    model.load_state_dict(w)
    return c, model


# ---------------------------------------------------------------- the shared log-prob checksum

CHECKSUM_TOKENS = 32


def checksum_ids(vocab):
    """The fixed sequence both sides score: ids[i] = (1 + 7919 * i) mod vocab, 32 tokens."""
    return [(1 + 7919 * i) % vocab for i in range(CHECKSUM_TOKENS)]


@torch.no_grad()
def logprob_checksum(model):
    """Sum over t of log p(ids[t+1] | ids[<=t]) for the fixed sequence: swarm's benches print the same number."""
    ids = torch.tensor([checksum_ids(model.c.vocab)])
    logp = model(ids)[:, :-1].log_softmax(-1).gather(-1, ids[:, 1:, None]).squeeze(-1)
    return float(logp.double().sum())
