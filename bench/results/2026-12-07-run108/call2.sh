#!/usr/bin/env bash
# run 108, call 2 (the session of 2026-12-07, second): after call 1 (run107/a/call.sh) has run. The bundle is
# rebuilt first with whatever call 1 justified (FMA_UNPACK = 1, ASYNC_3_5_BIT = true, or neither).
# Issue #7's rows through the op (4-bit g64 bf16 12288x4096; fu = 1 the default with one row tile since 0acc5cc),
# 3- and 5-bit (qmm-mma-async from 2 rows since 38915e8, '*' marks the op's choice) against qmv-rows, FU 0 against 1
# at g128 and g32, then the quant GPU tests (a full bundle: call 1's one failure was its stale test classes).
# Env: BENCH_S (default 380) seconds for the benches, END_S (default 560) for the whole call.
set -u
t0=$(date +%s)
o=$OUT/r108b; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096"
left() { echo $(( ${BENCH_S:-380} - ($(date +%s) - t0) )); }
run() { # tag secs args...
  local tag=$1 t=$2; shift 2
  local l=$(left); [ $l -lt 15 ] && { echo "== $tag skipped (time)"; return; }
  [ $t -gt $l ] && t=$l
  local a=$(date +%s)
  timeout $t .gpu/bin/tornado --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "read-only|graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
run issue 90 bench qmm $S --mode affine --bits 4 --group 64 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256
for b in 3 5; do
  run op$b 60 bench qmm $S --mode affine --bits $b --group 64 --dtype bf16 --rows 1,2,6,8,16,32,64 --kernel qmm-mma-async,qmv-rows
done
run g128 40 bench qmm $S --mode affine --bits 3 --group 128 --dtype f16 --rows 1,6,16 --kernel qmm-mma-async,qmv-rows
run sweep 60 bench qmm $S --sweep-formats
for g in 128 32; do
  run fu$g 40 bench qmm $S --mode affine --bits 4 --group $g --dtype bf16 --rows 1,2,8 --kernel qmm-mma-async@16x2x1x1x0x1x0,qmm-mma-async@16x2x1x1x0x1x1
done
echo "t $(date -u +%T) tests"
timeout $(( ${END_S:-560} - ($(date +%s) - t0) )) .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
echo "== tests"; grep -E "tests (successful|failed|skipped|aborted)|✘|shipped kernels:|rc=" $o/tests.log | tail -14
gzip -f $o/tests.log; tar -C $OUT -czf $OUT/r108b.tgz r108b
echo "end $(( $(date +%s) - t0 )) s"
