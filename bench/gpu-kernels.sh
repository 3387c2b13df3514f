#!/usr/bin/env bash
# The kernel benchmarks of one GPU run (gpu-all.sh now calls the two scripts itself, as its "qmm" and "sdpa"
# parts; this wrapper runs both outside gpu-all.sh): the quantized-matmul op
# (bench/gpu-qmm.sh) and, when present, attention (bench/gpu-sdpa.sh); each writes under $OUT/<name>.
# Run from the repository root on the GPU machine with the .gpu/ bundle present.
#   bench/gpu-kernels.sh
#   QMM_PHASES="rows formats" bench/gpu-kernels.sh   # gpu-qmm.sh's knobs (QMM_*) pass through
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OUT:-bench/results/tmp/kernels-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
status=0
if [ -x bench/gpu-qmm.sh ]; then
  OUT="$out/qmm" bench/gpu-qmm.sh || status=1
fi
if [ -x bench/gpu-sdpa.sh ]; then
  OUT="$out/sdpa" bench/gpu-sdpa.sh || status=1
fi
exit "$status"
