#!/usr/bin/env bash
# The quantized-matmul op's GPU run: the op's @GpuTest classes, then tornado bench qmm (the row sweep with
# every kernel timed, then every format at rows 1 and 6). Run from the repository root on the GPU machine
# with the .gpu/ bundle present (bin/gpu-bundle here, then carry .gpu). About 2-3 minutes.
#
#   bench/gpu-qmm.sh                          # writes logs and JSON records to $OUT, else bench/results/tmp/qmm-<date>/
#   QMM_PHASES=candidates bench/gpu-qmm.sh    # only the explicit plans the op does not use yet
#   QMM_PHASES="rows formats" bench/gpu-qmm.sh    # the benchmarks only (e.g. when gpu-all.sh's "ops" part ran the tests)
#
# Phases (QMM_PHASES, default "rows formats tests", run in that order so the numbers come first):
#   rows     tornado bench qmm --kernel all (rows 1,2,4,6,7,8,16,32,256; n=12288 k=4096 4-bit g64 bf16)
#   formats  tornado bench qmm --sweep-formats --kernel all (affine 2,3,4,5,6,8-bit g64, mxfp4, nvfp4, mxfp8;
#            rows 1 and 6)
#   tests    the @GpuTest classes of sirocco.dispatch.quant (public API on CUDA vs float64)
#   candidates (not in the default) the explicit plans the op does not use yet, against the op's kernel
#            for their rows: qmm-mma-async with two row tiles per warp at 9-32 rows, qmm-mma-xshared at
#            64-512 rows, and qmm-mma-async at n with a whole number of batches per SM (5, 6, 7 on 132 SMs)
# Knobs: QMM_BUDGET_S [175] total seconds (each phase gets at most what is left), QMM_ROWS_S [70], QMM_FORMATS_S [70],
# QMM_TESTS_S [120], QMM_CANDIDATES_S [240] per-phase caps, QMM_REPEATS [25], QMM_COPIES [8]; for a dry run of the script elsewhere:
# QMM_BACKEND [cuda], QMM_N [12288], QMM_K [4096], QMM_ROWS [1,2,4,6,7,8,16,32,256]
# (e.g. QMM_BACKEND=java QMM_N=64 QMM_K=256 QMM_ROWS=1,2 QMM_REPEATS=1 QMM_COPIES=2). All knobs are prefixed
# QMM_ so that gpu-all.sh's other parts (gpu-runtime.sh reads PHASES) cannot leak into this one.
#
# What to read afterwards:
#   qmm-rows.log     one line per (rows, kernel): us p50 (p10-p90), GB/s, % of floor, PyTorch refs, target
#                    met/MISSED, check OK/FAILED; '*' marks the op's choice. Set the policy from this table
#                    (dispatch/src/main/java/sirocco/dispatch/quant/QmmPolicy.java, AFFINE_MMA_MIN_ROWS).
#   qmm-formats.log  the same for every format at rows 1 and 6: whether fp modes at 6 rows are faster on
#                    qmm-mma than on fp-qmv (QmmPolicy.FP_MMA_MIN_ROWS, seed finding 4).
#   test-gpu-qmm.log the JUnit tree; every case compares with a float64 reference.
#   *.json           bench records (tornado bench compare OLD.json NEW.json).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
t=.gpu/bin/tornado
if [ ! -x "$t" ] || [ ! -x .gpu/bin/test-gpu ]; then
  echo "gpu-qmm: .gpu/ bundle missing: run bin/gpu-bundle on the build machine and carry .gpu" >&2
  exit 2
fi
QMM_PHASES="${QMM_PHASES:-rows formats tests}"
QMM_BUDGET_S="${QMM_BUDGET_S:-175}"
QMM_ROWS_S="${QMM_ROWS_S:-70}"
QMM_FORMATS_S="${QMM_FORMATS_S:-70}"
QMM_TESTS_S="${QMM_TESTS_S:-120}"
QMM_CANDIDATES_S="${QMM_CANDIDATES_S:-240}"
QMM_REPEATS="${QMM_REPEATS:-25}"
QMM_BACKEND="${QMM_BACKEND:-cuda}"
QMM_N="${QMM_N:-12288}"
QMM_K="${QMM_K:-4096}"
QMM_ROWS="${QMM_ROWS:-1,2,4,6,7,8,16,32,256}"
QMM_COPIES="${QMM_COPIES:-8}"
out="${OUT:-bench/results/tmp/qmm-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"
start=$(date +%s)
status=0
has() { case " $QMM_PHASES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
stamp() { echo "[$(date -u +%H:%M:%S)] $*"; }
left() { echo $(( QMM_BUDGET_S - ($(date +%s) - start) )); }
cap() { local l; l=$(left); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }

stamp "gpu-qmm: commit $(cat .gpu/COMMIT 2>/dev/null || echo unknown), output in $out, phases: $QMM_PHASES"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv > "$out/nvidia-smi.txt" 2>&1 || true

run_phase() { # name seconds logfile command...
  local name=$1 secs=$2 log=$3; shift 3
  if [ "$secs" -le 5 ]; then
    echo "gpu-qmm: $name skipped: ${secs}s left of its cap and the ${QMM_BUDGET_S}s budget" | tee -a "$out/summary.txt"
    status=1
    return
  fi
  stamp "$name (at most ${secs}s)"
  timeout --kill-after=5 "$secs" "$@" > "$log" 2>&1
  local rc=$?
  echo "$name rc=$rc" >> "$log"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "gpu-qmm: $name TIMED OUT after ${secs}s (partial log in $(basename "$log"))" | tee -a "$out/summary.txt"
  fi
  [ $rc -ne 0 ] && status=1
  return 0
}

if has rows; then
  run_phase "bench qmm rows sweep" "$(cap "$QMM_ROWS_S")" "$out/qmm-rows.log" \
    "$t" --backend "$QMM_BACKEND" bench qmm --kernel all --rows "$QMM_ROWS" --n "$QMM_N" --k "$QMM_K" \
      --group 64 --bits 4 --mode affine --dtype bf16 --copies "$QMM_COPIES" --repeats "$QMM_REPEATS" \
      --json "$out/qmm-rows.json"
  [ -f "$out/qmm-rows.log" ] && cat "$out/qmm-rows.log"
fi
if has formats; then
  run_phase "bench qmm formats sweep" "$(cap "$QMM_FORMATS_S")" "$out/qmm-formats.log" \
    "$t" --backend "$QMM_BACKEND" bench qmm --sweep-formats --kernel all --n "$QMM_N" --k "$QMM_K" --group 64 --dtype bf16 \
      --copies "$QMM_COPIES" --repeats "$QMM_REPEATS" --copy-mib 0 --json "$out/qmm-formats.json"
  [ -f "$out/qmm-formats.log" ] && cat "$out/qmm-formats.log"
fi
if has candidates; then
  cand() { # log-name n rows kernels
    "$t" --backend "$QMM_BACKEND" bench qmm --n "$2" --k "$QMM_K" --group 64 --bits 4 --mode affine --dtype bf16 \
      --copies "$QMM_COPIES" --repeats "$QMM_REPEATS" --rows "$3" --kernel "$4" --json "$out/qmm-cand-$1.json"
  }
  candidates() { # every sweep runs; the status is 1 if any failed
    local rc=0
    cand few "$QMM_N" 9,12,16,24,32 \
      qmm-mma-splitk,qmm-mma-async@16x2x2,qmm-mma-async@16x3x2,qmm-mma-xshared@2x2x2x3x1,qmm-mma-xshared@2x2x4x3x1 \
      || rc=1
    cand many "$QMM_N" 64,128,256,512 \
      qmm-tiled,qmm-mma-xshared@4x2x8x3,qmm-mma-xshared@4x2x8x2,qmm-mma-xshared@4x2x8x3x1,qmm-mma-xshared@4x2x8x4x1,qmm-mma-xshared@8x1x8x3 \
      || rc=1
    for n in 10560 12672 14784; do cand "n$n" "$n" 2 qmm-mma-async || rc=1; done
    return $rc
  }
  # timeout runs programs, not shell functions: the two go to a child bash with what they read.
  export t out QMM_BACKEND QMM_N QMM_K QMM_COPIES QMM_REPEATS
  run_phase "bench qmm candidates" "$(cap "$QMM_CANDIDATES_S")" "$out/qmm-candidates.log" \
    bash -c "$(declare -f cand candidates); candidates"
  [ -f "$out/qmm-candidates.log" ] && grep -E "graph replay|FAILED|not run|rc=" "$out/qmm-candidates.log"
fi
if has tests; then
  # No --reports-dir: the bundled jlink JDK has no java.xml, which the XML reports need.
  run_phase "op GPU tests (sirocco.dispatch.quant)" "$(cap "$QMM_TESTS_S")" "$out/test-gpu-qmm.log" \
    .gpu/bin/test-gpu --select-class sirocco.dispatch.quant.QuantOpGpuTest \
      --select-class sirocco.dispatch.quant.QuantizeGpuTest \
      --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest
  grep -E "tests (successful|failed|skipped|aborted)|✘|MethodSource|QmmDefaultPolicy CUDA" "$out/test-gpu-qmm.log" | tail -n 40
fi
{
  echo "gpu-qmm: finished after $(( $(date +%s) - start ))s, status $status"
  grep -hE "MISSED|met<=|FAILED|not run|copy of" "$out"/qmm-*.log 2>/dev/null | head -n 80
  grep -hE "tests (successful|failed)" "$out/test-gpu-qmm.log" 2>/dev/null
} >> "$out/summary.txt"
tail -n 3 "$out/summary.txt"
exit "$status"
