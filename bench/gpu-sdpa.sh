#!/usr/bin/env bash
# Attention on the GPU machine (repo root, .gpu bundle present): tornado bench sdpa (decode with every rung,
# prefill cuDNN vs fallback), PyTorch's figures for the same shapes measured in the same call, the op's GPU
# tests, and Lq 2/3 decode. Logs and JSON under $OUT (default bench/results/tmp/). The parts run in order of
# importance within SDPA_BUDGET_S [240] seconds; each has its own cap and is skipped when too little is left.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OUT:-$root/bench/results/tmp/sdpa-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
t=.gpu/bin/tornado
SDPA_BUDGET_S="${SDPA_BUDGET_S:-240}"
start=$(date +%s)
stamp() { echo "[$(date -u +%H:%M:%S)] $*"; }
part() { # name cap log command...
  local name=$1 cap=$2 log=$3; shift 3
  local left=$(( SDPA_BUDGET_S - ($(date +%s) - start) ))
  [ "$left" -lt "$cap" ] && cap=$left
  if [ "$cap" -le 10 ]; then echo "gpu-sdpa: $name skipped (budget spent)" | tee -a "$out/summary.txt"; return; fi
  stamp "$name (at most ${cap}s)"
  timeout --kill-after=5 "$cap" "$@" > "$log" 2>&1
  echo "$name rc=$?" >> "$log"
}
part "bench sdpa decode Lq=1, every rung" 90 "$out/sdpa-decode.log" \
  "$t" --backend cuda bench sdpa --lq 1 --kernel all --samples 40 --max-seconds 2 --json "$out/sdpa-decode.json"
part "bench sdpa prefill, cuDNN vs fallback" 70 "$out/sdpa-prefill.log" \
  "$t" --backend cuda bench sdpa --prefill --kernel all --samples 10 --max-seconds 1.5 --json "$out/sdpa-prefill.json"
part "PyTorch reference" 50 "$out/torch-sdpa.log" \
  bash -c "python3 bench/torch_sdpa.py --prefill && python3 bench/torch_sdpa.py"
part "attention GPU tests" 60 "$out/sdpa-tests.log" \
  .gpu/bin/test-gpu --select-class sirocco.attention.AttentionGpuTest
part "attention MLX ports on the GPU (cuDNN on; per-case decisions)" 150 "$out/sdpa-mlx-tests.log" \
  .gpu/bin/test-gpu --select-class sirocco.attention.AttentionMlxGpuTest
part "bench sdpa decode Lq=2,3 (ladder's choice)" 40 "$out/sdpa-decode23.log" \
  "$t" --backend cuda bench sdpa --lq 2,3 --samples 20 --max-seconds 1 --json "$out/sdpa-decode23.json"
stamp "gpu-sdpa: done after $(( $(date +%s) - start ))s"
