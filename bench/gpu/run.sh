#!/usr/bin/env bash
# The learner on a GPU machine that has PyTorch for Python (with its CUDA libtorch), CMake, a C++
# compiler and the CUDA toolkit, but no JDK and no Maven (a lent H100 machine, say). Run from the
# repository root after bench/gpu/kit.sh filled gpu/ (jars, a trimmed JRE, JNI headers, DJL's bridge
# source) and the folder travelled with the checkout:
#
#   OUT=/tmp/gpu-out bench/gpu/run.sh [stage ...]
#
# Stages, in this order (default: all):
#   env      nvidia-smi, the PyTorch and CUDA versions, TF32 defaults                  -> env.txt
#   ckpt     random Qwen3-shaped checkpoints in F32 (policy/src/test/python/hf_checkpoint.py make):
#            small (hidden 256, 4 layers, 4/2 heads, head_dim 64, ffn 688, vocab 512) and q06
#            (Qwen3-0.6B's shape: hidden 1024, $Q06_LAYERS layers [28], 16/8 heads, head_dim 128,
#            ffn 3072, vocab 151936, tied), and their float64 reference log-probs (in the background)
#   bridge   DJL's libdjl_torch.so built against this machine's libtorch (bench/gpu/build-bridge.sh)
#   ours     GpuCheck on the GPU: log-probs of the parity sequences, then GRPO steps (B=16, T=256;
#            q06 also in micro-batches of 4 and at T=1024), with IEEE fp32 matmuls (libtorch's default)
#            and TF32 ones (TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1), then small on the host's cores
#   torch    bench/gpu/grpo_torch.py, the same step in PyTorch eager: fp32, tf32 and bf16 autocast,
#            eager and sdpa attention
#   cpu      GpuCheck with q06 on the host's cores (2 steps; not by default: over 150 s on 16 cores)
#   parity   max |diff| of every scorer against the float64 reference -> parity.jsonl
# Everything lands in $OUT (results.tgz holds every file; summary.txt the figures).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/gpu-out}
WORK=${WORK:-/tmp/agentswarm-gpu}
PY=${PY:-$(command -v python3)}
Q06_LAYERS=${Q06_LAYERS:-28}
STEPS=${STEPS:-10}
ONLY=${ONLY:-}              # a regular expression: only the runs whose label matches
REF=${REF:-1}               # 0: no float64 reference log-probs for q06
DEADLINE=${DEADLINE:-470}   # seconds: no run starts past it
LIMIT=${LIMIT:-575}         # seconds: every run ends by then (the summary is written after)
STAGES=${*:-env ckpt bridge ours torch parity}
mkdir -p "$OUT" "$WORK/res"
RES=$WORK/res
log() { echo "[$(date +%T) +${SECONDS}s] $*" | tee -a "$RES/run.log" >&2; }
late() { if (( SECONDS > DEADLINE )); then log "skipped past the deadline: $*"; return 0; fi; return 1; }
left() { local l=$(( LIMIT - SECONDS )); (( l > 150 )) && l=150; echo "$l"; }
has() { [[ " $STAGES " == *" $1 "* ]]; }
TORCH_LIB=$("$PY" -c 'import torch, os; print(os.path.join(os.path.dirname(torch.__file__), "lib"))')
TORCH_VERSION=$("$PY" -c 'import torch; print(torch.__version__.split("+")[0])')
TORCH_FLAVOR=$("$PY" -c 'import torch; v = torch.version.cuda; print("cu" + v.replace(".", "") if v else "cpu")')
SMALL=(--family qwen3 --hidden 256 --layers 4 --heads 4 --kv-heads 2 --head-dim 64 --ffn 688 --vocab 512 --tie --dtype fp32 --seed 1)
Q06=(--family qwen3 --hidden 1024 --layers "$Q06_LAYERS" --heads 16 --kv-heads 8 --head-dim 128 --ffn 3072 --vocab 151936 --tie --dtype fp32 --seed 2)

if has env; then
  { nvidia-smi; nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
    "$PY" -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda,
"cudnn", torch.backends.cudnn.version(), "device", torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
"matmul.allow_tf32", torch.backends.cuda.matmul.allow_tf32, "cudnn.allow_tf32", torch.backends.cudnn.allow_tf32)'
    for o in "" 1; do TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=$o "$PY" -c 'import os, time, torch
if torch.cuda.is_available():
    a = torch.randn(4096, 4096, device="cuda"); b = torch.randn(4096, 4096, device="cuda"); [a @ b for _ in range(3)]
    torch.cuda.synchronize(); t = time.perf_counter(); [a @ b for _ in range(50)]; torch.cuda.synchronize()
    print("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=%r: fp32 matmul 4096^3 %.1f TFLOP/s" % (os.environ.get("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", ""),
          2 * 4096 ** 3 * 50 / (time.perf_counter() - t) / 1e12))'; done
    echo "libtorch folder: $TORCH_LIB"; ls "$TORCH_LIB"
    nvcc --version | tail -2; cmake --version | head -1; c++ --version | head -1; nproc; free -g | head -2
    echo "DJL LibUtils: PYTORCH_LIBRARY_PATH=$TORCH_LIB PYTORCH_VERSION=$TORCH_VERSION PYTORCH_FLAVOR=$TORCH_FLAVOR, bridge as $TORCH_LIB/libdjl_torch.so"
  } > "$OUT/env.txt" 2>&1
  cp "$OUT/env.txt" "$RES/"
  head -30 "$OUT/env.txt" >&2
fi

if has ckpt; then
  log "checkpoints"
  "$PY" policy/src/test/python/hf_checkpoint.py make --dir "$WORK/small" "${SMALL[@]}"
  "$PY" bench/gpu/parity.py seqs --vocab 512 --out "$WORK/seqs_small.jsonl"
  "$PY" bench/gpu/parity.py seqs --vocab 151936 --out "$WORK/seqs_q06.jsonl"
  "$PY" policy/src/test/python/hf_checkpoint.py logprobs --dir "$WORK/small" < "$WORK/seqs_small.jsonl" > "$RES/ref_small.jsonl"
  # q06 is written and scored in the background while the bridge builds.
  rm -f "$WORK/q06.ready"
  ( "$PY" policy/src/test/python/hf_checkpoint.py make --dir "$WORK/q06" "${Q06[@]}" && touch "$WORK/q06.ready"
    log "q06 written: $(du -sh "$WORK/q06" | cut -f1)"
    [[ "$REF" == 1 ]] && "$PY" policy/src/test/python/hf_checkpoint.py logprobs --dir "$WORK/q06" < "$WORK/seqs_q06.jsonl" > "$RES/ref_q06.jsonl" 2> "$RES/ref_q06.err"
    log "q06 reference done" ) &
  REF_PID=$!
fi
q06() { # waits for the q06 checkpoint (at most 5 minutes)
  for _ in $(seq 300); do [[ -f "$WORK/q06.ready" ]] && return 0; sleep 1; done
  log "no q06 checkpoint"; return 1
}

BRIDGE_OK=
if has bridge; then
  log "bridge"
  if bench/gpu/build-bridge.sh gpu/djl-src gpu/include "$WORK/bridge" "$PY" > "$RES/bridge.out" 2> "$RES/bridge.log"; then
    BRIDGE_OK=1; log "bridge built: $(ls -la "$TORCH_LIB/libdjl_torch.so")"
  else
    log "bridge FAILED; errors:"; grep -E "error|Error" "$RES/bridge.log" | head -40 | tee -a "$RES/run.log" >&2
  fi
elif [[ -f "$TORCH_LIB/libdjl_torch.so" ]]; then
  BRIDGE_OK=1
fi

ours() { # label, then GpuCheck's arguments
  local label=$1; shift
  [[ -z "$ONLY" || "ours_$label" =~ $ONLY ]] || return 0
  late "ours $label" && return
  log "ours $label"
  PYTORCH_LIBRARY_PATH=$TORCH_LIB PYTORCH_VERSION=$TORCH_VERSION PYTORCH_FLAVOR=$TORCH_FLAVOR \
    timeout "$(left)" gpu/jre/bin/java -Xmx8g -XX:MaxDirectMemorySize=16g -Dai.djl.offline=true -cp "gpu/lib/*" \
    dev.agentswarm.app.bench.GpuCheck --json "$RES/ours_$label.json" "$@" > "$RES/ours_$label.out" 2> "$RES/ours_$label.err"
  local rc=$?
  log "ours $label rc=$rc $(grep -E '"(step_ms_median|tokens_per_s|gpu_mib_after_steps|load_s)"' "$RES/ours_$label.json" 2>/dev/null | tr -d ' \n')"
  (( rc == 0 )) || { grep -m4 -E "Exception|Error|error:" "$RES/ours_$label.err"; tail -4 "$RES/ours_$label.err"; } | cut -c1-400 | tee -a "$RES/run.log" >&2
}

if has ours && [[ -n "$BRIDGE_OK" ]]; then
  ours small_gpu --model "$WORK/small" --device gpu --score "$WORK/seqs_small.jsonl" --scores-out "$RES/ours_small_gpu.jsonl" --steps 20
  q06 && ours q06_gpu --model "$WORK/q06" --device gpu --score "$WORK/seqs_q06.jsonl" --scores-out "$RES/ours_q06_gpu.jsonl" --steps "$STEPS"
  q06 && TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 ours q06_gpu_tf32 --model "$WORK/q06" --device gpu --score "$WORK/seqs_q06.jsonl" \
    --scores-out "$RES/ours_q06_gpu_tf32.jsonl" --steps "$STEPS"
  ours q06_gpu_m4 --model "$WORK/q06" --device gpu --micro-rows 4 --steps "$STEPS"
  ours q06_gpu_t1024 --model "$WORK/q06" --device gpu --seq 1024 --micro-rows 4 --steps 5 --warmup 2
  TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1 ours q06_gpu_tf32_t1024 --model "$WORK/q06" --device gpu --seq 1024 --micro-rows 4 --steps 5 --warmup 2
  ours small_cpu --model "$WORK/small" --device cpu --score "$WORK/seqs_small.jsonl" --scores-out "$RES/ours_small_cpu.jsonl" --steps 5 --warmup 2
fi

pt() { # label, then grpo_torch.py's arguments
  local label=$1; shift
  [[ -z "$ONLY" || "torch_$label" =~ $ONLY ]] || return 0
  late "torch $label" && return
  log "torch $label"
  timeout "$(left)" "$PY" bench/gpu/grpo_torch.py --json "$RES/torch_$label.json" "$@" > "$RES/torch_$label.out" 2> "$RES/torch_$label.err"
  local rc=$?
  log "torch $label rc=$rc $(grep -E '"(step_ms_median|tokens_per_s|peak_reserved_mib)"' "$RES/torch_$label.json" 2>/dev/null | tr -d ' \n')"
  (( rc == 0 )) || tail -6 "$RES/torch_$label.err" | cut -c1-400 | tee -a "$RES/run.log" >&2
}

if has torch; then
  pt small_fp32_eager --model "$WORK/small" --score "$WORK/seqs_small.jsonl" --scores-out "$RES/torch_small_fp32.jsonl" --steps 20
  q06 && pt q06_fp32_eager --model "$WORK/q06" --score "$WORK/seqs_q06.jsonl" --scores-out "$RES/torch_q06_fp32.jsonl" --steps "$STEPS"
  pt q06_tf32_eager --model "$WORK/q06" --precision tf32 --score "$WORK/seqs_q06.jsonl" --scores-out "$RES/torch_q06_tf32.jsonl" --steps "$STEPS"
  pt q06_tf32_sdpa --model "$WORK/q06" --attention sdpa --precision tf32 --steps "$STEPS"
  pt q06_bf16_sdpa --model "$WORK/q06" --attention sdpa --precision bf16 --steps "$STEPS"
  pt q06_fp32_eager_t1024 --model "$WORK/q06" --seq 1024 --micro-rows 4 --steps 5 --warmup 2
  pt q06_bf16_sdpa_t1024 --model "$WORK/q06" --attention sdpa --precision bf16 --seq 1024 --micro-rows 4 --steps 5 --warmup 2
  pt small_bf16_sdpa --model "$WORK/small" --attention sdpa --precision bf16 --steps 20
fi

# The 0.6B shape on the host's cores, last: the slowest run, and the least needed.
if has cpu && [[ -n "$BRIDGE_OK" ]]; then
  q06 && ours q06_cpu --model "$WORK/q06" --device cpu --steps 2 --warmup 1
fi

if has parity; then
  [[ -n "${REF_PID:-}" ]] && wait "$REF_PID"
  : > "$RES/parity.jsonl"
  for pair in small:ours_small_gpu small:ours_small_cpu small:torch_small_fp32 q06:ours_q06_gpu q06:ours_q06_gpu_tf32 \
              q06:torch_q06_fp32 q06:torch_q06_tf32; do
    ref=${pair%%:*}; got=${pair#*:}
    [[ -s "$RES/ref_$ref.jsonl" && -s "$RES/$got.jsonl" ]] || continue
    "$PY" bench/gpu/parity.py compare "$RES/ref_$ref.jsonl" "$RES/$got.jsonl" --label "$got" >> "$RES/parity.jsonl"
  done
  cat "$RES/parity.jsonl" >&2
fi

{ echo "== parity"; cat "$RES/parity.jsonl" 2>/dev/null
  for f in "$RES"/ours_*.json "$RES"/torch_*.json; do
    [[ -f "$f" ]] || continue
    echo "== $(basename "$f" .json) $("$PY" -c 'import json, sys; d = json.load(open(sys.argv[1]))
keys = ["engine", "torch", "device", "precision", "attention", "params", "load_s", "seq", "micro_rows", "step_ms_median",
        "step_ms_p10", "step_ms_p90", "tokens_per_s", "model_tflops", "gpu_mib_after_load", "gpu_mib_after_steps",
        "peak_allocated_mib", "peak_reserved_mib", "scoring_forward_ms_median", "matmul_fp32_tflops", "first_steps", "last_step"]
print(json.dumps({k: d[k] for k in keys if k in d}))' "$f")"
  done
  echo "== log"; cat "$RES/run.log"
} > "$OUT/summary.txt"
tar -czf "$OUT/results.tgz" -C "$WORK" res
cat "$OUT/summary.txt"
