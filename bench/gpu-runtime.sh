#!/usr/bin/env bash
# The runtime issue's GPU proofs in one run (about 5-6 minutes with the defaults). Run from the repository
# root on the GPU machine with the .gpu/ bundle present (bin/gpu-bundle here, then carry .gpu):
#
#   bench/gpu-runtime.sh                       # writes logs and JSON records to $OUT, else bench/results/<date>/
#   EXIT_REPEAT=20 PHASES="tests exit" bench/gpu-runtime.sh   # a shorter run
#
# Phases (PHASES, default "tests exit worker sync memory"):
#   tests   the runtime's @GpuTest classes (cooperative waits, completion worker, pool trim, OOM, launch overhead)
#   exit    tornado exit-variants on CUDA, EXIT_REPEAT runs per variant (0 aborts, 0 hangs expected)
#   worker  tornado bench worker (completion worker CPU with and without sleeps)
#   sync    tornado bench sync (launch + synchronize every way; needs Java kernels on CUDA, i.e. the JIT)
#   memory  tornado bench memory (pool alloc/free, clearCache cost)
# Java kernels on CUDA need the JIT wired into CudaKernels.launch. The script probes for that first: without
# it, exit variants use device copies as the in-flight work (EXIT_WORK=copy), bench worker runs copies only,
# and bench sync is skipped with a note.
# Every knob is an environment variable (defaults in brackets):
#   EXIT_REPEAT [200] EXIT_PARALLEL [16] EXIT_LONG_MS [500] EXIT_TIMEOUT_S [60] EXIT_WORK [auto|kernel|copy]
#   WORKER_SECONDS [10] SYNC_ITERATIONS [200] SYNC_CONCURRENT_ITERATIONS [20] MEMORY_ITERATIONS [2000]
# The last lines printed are compact tables for bench/RESULTS.md; the JSON records go next to the logs (copy
# them to bench/results/ so later runs compare against them: tornado bench compare OLD.json NEW.json).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
t=.gpu/bin/tornado
if [ ! -x "$t" ] || [ ! -x .gpu/bin/test-gpu ]; then
  echo "gpu-runtime: .gpu/ bundle missing: run bin/gpu-bundle on the build machine and carry .gpu" >&2
  exit 2
fi

PHASES="${PHASES:-tests exit worker sync memory}"
EXIT_REPEAT="${EXIT_REPEAT:-200}"
EXIT_PARALLEL="${EXIT_PARALLEL:-16}"
EXIT_LONG_MS="${EXIT_LONG_MS:-500}"
EXIT_TIMEOUT_S="${EXIT_TIMEOUT_S:-60}"
EXIT_WORK="${EXIT_WORK:-auto}"
WORKER_SECONDS="${WORKER_SECONDS:-10}"
SYNC_ITERATIONS="${SYNC_ITERATIONS:-200}"
SYNC_CONCURRENT_ITERATIONS="${SYNC_CONCURRENT_ITERATIONS:-20}"
MEMORY_ITERATIONS="${MEMORY_ITERATIONS:-2000}"

out="${OUT:-bench/results/$(date -u +%Y-%m-%dT%H%M%SZ)-gpu-runtime}"
mkdir -p "$out"
status=0
has() { case " $PHASES " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
stamp() { echo "[$(date -u +%H:%M:%S)] $*"; }

stamp "gpu-runtime: commit $(cat .gpu/COMMIT 2>/dev/null || echo unknown), output in $out, phases: $PHASES"
"$t" devices 2>&1 | tee "$out/devices.log" | head -n 3

# Can Java kernels launch on CUDA yet (JIT wired)? One exit variant with a kernel answers it.
kernels=no
if "$t" --backend cuda exit-variants --work kernel --long-ms 100 --repeat 1 --parallel 1 default-exit \
    > "$out/probe.log" 2>&1; then
  kernels=yes
fi
stamp "Java kernels on CUDA: $kernels"
work="$EXIT_WORK"
if [ "$work" = auto ]; then work=$([ $kernels = yes ] && echo kernel || echo copy); fi

if has tests; then
  stamp "runtime GPU tests..."
  .gpu/bin/test-gpu \
    --select-class sirocco.runtime.cuda.CudaDriverGpuTest \
    --select-class sirocco.runtime.cuda.LaunchOverheadGpuTest \
    --select-class sirocco.runtime.cuda.CudaWaitGpuTest \
    --select-class sirocco.runtime.cuda.CudaDeviceRuntimeGpuTest \
    > "$out/test-gpu.log" 2>&1 || status=1
fi

if has exit; then
  stamp "exit variants: $EXIT_REPEAT runs each, $EXIT_PARALLEL at once, $work work of $EXIT_LONG_MS ms..."
  "$t" --backend cuda exit-variants --repeat "$EXIT_REPEAT" --parallel "$EXIT_PARALLEL" \
    --long-ms "$EXIT_LONG_MS" --work "$work" --timeout-s "$EXIT_TIMEOUT_S" --json "$out/exit-variants.json" \
    > "$out/exit-variants.log" 2>&1 || status=1
fi

if has worker; then
  stamp "bench worker: $WORKER_SECONDS s per setting..."
  nokernel=(); [ $kernels = yes ] || nokernel=(--no-kernel)
  "$t" --backend cuda bench worker --seconds "$WORKER_SECONDS" --sleep-ms 5,0 ${nokernel[@]+"${nokernel[@]}"} \
    --json "$out/bench-worker.json" > "$out/bench-worker.log" 2>&1 || status=1
fi

if has sync; then
  if [ $kernels = yes ]; then
    stamp "bench sync: $SYNC_ITERATIONS round trips per mode..."
    "$t" --backend cuda bench sync --iterations "$SYNC_ITERATIONS" \
      --concurrent-iterations "$SYNC_CONCURRENT_ITERATIONS" --json "$out/bench-sync.json" \
      > "$out/bench-sync.log" 2>&1 || status=1
  else
    echo "bench sync skipped: its busy-wait kernel is a Java kernel and CUDA launches of Java kernels" \
      "are not wired yet (see $out/probe.log); LaunchOverheadGpuTest measures synchronize vs raw meanwhile" \
      > "$out/bench-sync.log"
  fi
fi

if has memory; then
  stamp "bench memory..."
  "$t" --backend cuda bench memory --iterations "$MEMORY_ITERATIONS" --json "$out/bench-memory.json" \
    > "$out/bench-memory.log" 2>&1 || status=1
fi

# Compare each record with the newest earlier one of the same name under bench/results/.
for rec in bench-worker bench-sync bench-memory; do
  [ -f "$out/$rec.json" ] || continue
  prev=$(ls -1d bench/results/*/ 2>/dev/null | grep -v "^$out/\?$" | sort | while read -r d; do
    [ -f "$d$rec.json" ] && echo "$d$rec.json"; done | tail -n 1)
  if [ -n "$prev" ] && [ "$prev" != "$out/$rec.json" ]; then
    "$t" bench compare "$prev" "$out/$rec.json" > "$out/compare-$rec.log" 2>&1 || true
  fi
done

echo
echo "================ gpu-runtime summary ($(cat .gpu/COMMIT 2>/dev/null || echo unknown), $work work) ================"
if [ -f "$out/test-gpu.log" ]; then
  echo "--- runtime GPU tests ---"
  grep -E "tests (successful|failed|aborted|skipped)|launch-overhead \||completion worker idle CPU|single carrier|^fault:|wait pool" \
    "$out/test-gpu.log" | sed 's/^[[:space:]]*//' | sort -u
  grep -E "✘|MethodSource .*failed" "$out/test-gpu.log" | head -n 20
fi
for f in exit-variants bench-worker bench-sync bench-memory; do
  [ -f "$out/$f.log" ] || continue
  echo "--- $f ---"
  grep -v -E "^record written|^\s*$" "$out/$f.log" | tail -n 40
done
for f in "$out"/compare-*.log; do
  [ -f "$f" ] || continue
  echo "--- $(basename "$f" .log) ---"
  head -n 40 "$f"
done
echo "logs and JSON records: $out; exit status $status"
exit $status
