#!/usr/bin/env bash
# The cuDNN path's GPU run (phase 1): run on the GPU machine from the repository root with .gpu/ present
# (bin/gpu-bundle here first). Writes everything under $OUT when set (the device tool), else under
# bench/results/tmp/cudnn-<date>/ (git-ignored). Exit status: that of the test run.
#
#   bench/gpu-cudnn.sh                 # all tests of package sirocco.dispatch.cudnn (GPU and CI ones)
#   bench/gpu-cudnn.sh --select-class sirocco.dispatch.cudnn.CudnnProbeGpuTest   # narrower
#
# What to read afterwards (see docs/CUDNN.md, "What the GPU run must check"):
#   test-gpu-cudnn.log   per-case lines "OK|FAIL <case> max abs err ... | heuristics A #i engN ...",
#                        "REFUSED (expected)" for causal Lq > Lkv, "NOT RUN" with cuDNN's reason, the
#                        plan JSON of one case per mask kind, "PROBE head dim 256 ..." and "HOST ..." lines
#   cudnn-api.log        cuDNN's own warnings and errors (CUDNN_LOGLEVEL_DBG=2): why configs were refused
#   env.txt              driver, GPU, the cuDNN and NVRTC libraries the loader can see
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${OUT:-$root/bench/results/tmp/cudnn-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$out"

if [ ! -x .gpu/bin/test-gpu ]; then
  echo "gpu-cudnn: .gpu/bin/test-gpu is missing: run bin/gpu-bundle and carry .gpu along" | tee "$out/error.txt" >&2
  exit 2
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -a)"
  command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total,clocks.sm --format=csv
  echo "--- cuDNN libraries"
  ls -l /usr/lib/x86_64-linux-gnu/libcudnn* 2>/dev/null || echo "(none in /usr/lib/x86_64-linux-gnu)"
  ldconfig -p 2>/dev/null | grep -E 'libcudnn|libnvrtc' || echo "(ldconfig lists no libcudnn/libnvrtc)"
  echo "--- overrides: SIROCCO_CUDNN_LIBRARY=${SIROCCO_CUDNN_LIBRARY:-} JAVA_TOOL_OPTIONS=${JAVA_TOOL_OPTIONS:-}"
  echo "--- tornado devices"
  .gpu/bin/tornado devices 2>&1 || true
} > "$out/env.txt" 2>&1
cat "$out/env.txt"

select=(--select-package sirocco.dispatch.cudnn)
for a in "$@"; do case "$a" in --select*) select=();; esac; done

# cuDNN's own log: warnings and errors only (level 3 logs every call and is huge).
export CUDNN_LOGLEVEL_DBG="${CUDNN_LOGLEVEL_DBG:-2}"
export CUDNN_LOGDEST_DBG="${CUDNN_LOGDEST_DBG:-$out/cudnn-api.log}"

start=$(date +%s)
# No --reports-dir: the bundled jlink JDK has no java.xml, which the XML reports need.
.gpu/bin/test-gpu ${select[@]+"${select[@]}"} "$@" 2>&1 | tee "$out/test-gpu-cudnn.log"
status=${PIPESTATUS[0]}
echo "gpu-cudnn: test run exited $status after $(( $(date +%s) - start )) s; logs in $out" | tee -a "$out/test-gpu-cudnn.log"

# The lines to paste into bench/RESULTS.md.
grep -E '^(PROBE|HOST)|^(OK|FAIL|NOT RUN|REFUSED)|^cuDNN |^device:' "$out/test-gpu-cudnn.log" > "$out/summary.txt" || true
exit "$status"
