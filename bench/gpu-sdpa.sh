#!/usr/bin/env bash
# Attention on the GPU machine (repo root, .gpu bundle present): the op's GPU tests, tornado bench sdpa
# (decode, every rung; prefill, cuDNN vs fallback) and PyTorch's figures for the same shapes, measured in
# the same call. Logs and JSON under $OUT (default bench/results/tmp/). Each part has its own time limit.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OUT:-$root/bench/results/tmp/sdpa-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
t=.gpu/bin/tornado
stamp() { echo "[$(date -u +%H:%M:%S)] $*"; }
stamp "attention GPU tests"
timeout 120 .gpu/bin/test-gpu --select-class sirocco.attention.AttentionGpuTest > "$out/sdpa-tests.log" 2>&1
stamp "bench sdpa decode (Lq 1: every rung)"
timeout 150 "$t" --backend cuda bench sdpa --lq 1 --kernel all --json "$out/sdpa-decode.json" > "$out/sdpa-decode.log" 2>&1
stamp "bench sdpa decode (Lq 2, 3: the ladder's choice)"
timeout 90 "$t" --backend cuda bench sdpa --lq 2,3 --json "$out/sdpa-decode23.json" > "$out/sdpa-decode23.log" 2>&1
stamp "bench sdpa prefill (cuDNN vs fallback)"
timeout 150 "$t" --backend cuda bench sdpa --prefill --kernel all --samples 20 --max-seconds 2 \
  --json "$out/sdpa-prefill.json" > "$out/sdpa-prefill.log" 2>&1
stamp "PyTorch reference (prefill and decode)"
timeout 90 python3 bench/torch_sdpa.py --prefill > "$out/torch-sdpa.log" 2>&1
timeout 60 python3 bench/torch_sdpa.py >> "$out/torch-sdpa.log" 2>&1
stamp "sdpa done"
