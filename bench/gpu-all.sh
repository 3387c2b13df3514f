#!/usr/bin/env bash
# One GPU-machine run of every GPU check Sirocco has, for the device tool (which returns at most 8 files):
# logs go to a work folder and come back as one archive, $OUT/gpu-all.tgz, with a summary printed last.
#   bench/gpu-all.sh                 # everything
#   PARTS="diff runtime" bench/gpu-all.sh
# Knobs: PARTS [demo diff qmm sdpa; also runtime, cudnn, ops], EXIT_REPEAT (runtime script), CUDNN_TIMEOUT_S [240].
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
PARTS="${PARTS:-demo diff qmm sdpa}"
final_out="${OUT:-$root/bench/results/tmp/gpu-all-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$final_out"
work="$(mktemp -d /tmp/sirocco-gpu-all.XXXX)"
has() { case " $PARTS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
stamp() { echo "[$(date -u +%H:%M:%S)] $*"; }
stamp "commit $(cat .gpu/COMMIT 2>/dev/null || echo unknown), parts: $PARTS"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$work/nvidia-smi.txt" 2>&1

if has demo; then
  stamp "demo on CUDA"
  timeout 60 .gpu/bin/tornado --backend cuda demo > "$work/demo.log" 2>&1; echo "demo rc=$?" >> "$work/demo.log"
fi
if has diff; then
  stamp "GPU differential suite (JIT test kernels vs Java backend)"
  timeout 60 .gpu/bin/test-gpu --select-class sirocco.jit.GpuDifferentialTest > "$work/diff.log" 2>&1
fi
if has runtime; then
  stamp "runtime: tests, exit variants, bench worker/sync/memory"
  OUT="$work/runtime" bench/gpu-runtime.sh > "$work/runtime.log" 2>&1
fi
if has cudnn; then
  stamp "cuDNN path"
  OUT="$work/cudnn" timeout "${CUDNN_TIMEOUT_S:-240}" bench/gpu-cudnn.sh > "$work/cudnn.log" 2>&1
  echo "cudnn rc=$?" >> "$work/cudnn.log"
fi
if has ops; then
  stamp "op-level GPU tests (public API on CUDA vs float64 references)"
  timeout 400 .gpu/bin/test-gpu --select-package sirocco.dispatch.quant > "$work/ops.log" 2>&1
fi
if has qmm && [ -x bench/gpu-qmm.sh ]; then
  stamp "quantized matmul: GPU tests and bench qmm"
  OUT="$work/qmm" bench/gpu-qmm.sh > "$work/qmm.log" 2>&1
fi
if has sdpa; then
  stamp "attention: GPU tests, bench sdpa, PyTorch reference"
  OUT="$work/sdpa" bench/gpu-sdpa.sh > "$work/sdpa.log" 2>&1
fi
stamp "done"
tar czf "$final_out/gpu-all.tgz" -C "$work" .
for f in "$work"/*.log "$work"/*/*.log; do
  [ -f "$f" ] || continue
  echo "===== $(basename "$f") (tail)"
  grep -E "tests (successful|failed|skipped)|✘|FAIL|MISSED|rc=|passed|OK|exception|Exception" "$f" | tail -n 25
done
