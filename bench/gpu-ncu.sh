#!/usr/bin/env bash
# Hardware counters for the kernels that miss their targets: Nsight Compute (ncu) on one warmed-up launch
# of each, through the normal `tornado bench` commands. Needs the GPU machine's ncu (it reads counters on
# the Firecracker runtime, not on gVisor) and the .gpu/ bundle. Clocks are left alone (--clock-control
# none, as device/METHOD.md asks); caches are flushed before the profiled launch (ncu's default), so the
# weights come from HBM as in the benchmarks.
#
#   bench/gpu-ncu.sh                # every case below; logs to $OUT (else bench/results/tmp/ncu-<date>/)
#   NCU_CASES="qmv1 mma8" bench/gpu-ncu.sh
#
# Cases: qmv1 (qmv-splitk, 1 row), qmv1-read (the read-only kernel over the same bytes), mma8 (qmm-mma,
# 8 rows), dec512 (decode vector kernel, S=32768 D=512), dec128 (S=32768 D=128, vector forced), dec256s1k
# (S=1024 D=256: both passes of the split-K decode, to see what a short context's fixed cost is made of),
# dec128s8k / dec64s8k / dec512s8k (S=8192, the op's choice, both passes: issue #8's S=8192 cells), dec128s8k-read
# (the read-only kernel over that cell's K/V bytes).
# Each case writes NAME.txt (ncu's details page, full section set) and NAME-sass.txt (SASS with stall
# samples per instruction, qmv1 and dec512 only).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
t=.gpu/bin/tornado
ncu_bin="$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1 || true)"
if [ -z "$ncu_bin" ]; then
  echo "gpu-ncu: ncu not found" >&2
  exit 2
fi
if [ ! -x "$t" ]; then
  echo "gpu-ncu: .gpu/ bundle missing: run bin/gpu-bundle and carry .gpu" >&2
  exit 2
fi
out="${OUT:-bench/results/tmp/ncu-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
NCU_CASES="${NCU_CASES:-qmv1 qmv1-read mma8 dec512 dec128}"
echo "gpu-ncu: $("$ncu_bin" --version | tail -1), kernel $(uname -r), cases: $NCU_CASES" | tee "$out/ncu-version.txt"

profile() { # name kernel-regex sass(yes/no) tornado-args...
  local name="$1" regex="$2" sass="$3"
  shift 3
  local rep="$out/$name"
  echo "[$(date -u +%H:%M:%S)] $name: $*"
  timeout 240 "$ncu_bin" --clock-control none --set full --import-source no -k "regex:$regex" \
    --launch-skip 5 --launch-count "${NCU_COUNT:-1}" --target-processes all -f -o "$rep" \
    "$t" --backend cuda "$@" > "$out/$name-run.log" 2>&1
  echo "  rc=$?"
  "$ncu_bin" --import "$rep.ncu-rep" --page details > "$out/$name.txt" 2>&1
  if [ "$sass" = yes ]; then
    "$ncu_bin" --import "$rep.ncu-rep" --page source --print-source sass > "$out/$name-sass.txt" 2>&1
  fi
  rm -f "$rep.ncu-rep"
}

for c in $NCU_CASES; do
  case "$c" in
    qmv1) profile qmv1 'AffineQmvSplitK' yes bench qmm --rows 1 --kernel qmv-splitk --repeats 2 ;;
    qmv1-read) profile qmv1-read 'readFloor' no bench qmm --rows 1 --kernel qmv-splitk --repeats 2 ;;
    mma8) profile mma8 'QmmMma' no bench qmm --rows 8 --kernel qmm-mma --repeats 2 ;;
    dec512) profile dec512 'SdpaVector_decode' yes bench sdpa --seq 32768 --head-dim 512 --lq 1 \
      --kernel vector --samples 3 ;;
    dec128) profile dec128 'SdpaVector_decode' no bench sdpa --seq 32768 --head-dim 128 --lq 1 \
      --kernel vector --samples 3 ;;
    dec256s1k) NCU_COUNT=2 profile dec256s1k 'Sdpa' no bench sdpa --seq 1024 --head-dim 256 --lq 1 \
      --kernel vector --samples 3 ;;
    dec128s8k) NCU_COUNT=2 profile dec128s8k 'Sdpa' yes bench sdpa --seq 8192 --head-dim 128 --lq 1 \
      --kernel auto --samples 3 ;;
    dec64s8k) NCU_COUNT=2 profile dec64s8k 'Sdpa' no bench sdpa --seq 8192 --head-dim 64 --lq 1 \
      --kernel auto --samples 3 ;;
    dec512s8k) NCU_COUNT=2 profile dec512s8k 'Sdpa' no bench sdpa --seq 8192 --head-dim 512 --lq 1 \
      --kernel auto --samples 3 ;;
    dec128s8k-read) profile dec128s8k-read 'readFloor' no bench sdpa --seq 8192 --head-dim 128 --lq 1 \
      --kernel auto --samples 3 ;;
    *) echo "gpu-ncu: unknown case $c" >&2 ;;
  esac
done
