#!/usr/bin/env bash
# run 104, call 1: the rows through the op (auto), every format at rows 1 and 6, g32 auto,
# qmm-tiled plans at 256 rows, then the whole GPU suite (bundle 994c3f9)
set -u
t0=$(date +%s)
o=$OUT/r104a; mkdir -p $o
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096"
run() { # tag secs args...
  local tag=$1 t=$2; shift 2
  timeout $t .gpu/bin/tornado --backend cuda bench qmm $S "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag"; grep -E "graph replay|FAILED|ERROR|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine 4-bit //; s/, target.*//'
}
run rows 90 --mode affine --bits 4 --group 64 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256 --kernel auto
run g32 60 --mode affine --bits 4 --group 32 --dtype bf16 --rows 1,8,16,32 --kernel auto
run formats 120 --sweep-formats --rows 1,6 --kernel auto
run tiled256 150 --mode affine --bits 4 --group 64 --dtype bf16 --rows 256 --kernel qmm-tiled@128x96x3x4x2x1,qmm-tiled@128x128x4x4x2x1,qmm-tiled@128x96x3x8x2x1,qmm-tiled@64x192x3x4x2x1,qmm-tiled@128x192x3x8x2x1,qmm-tiled@256x96x3x8x2x1,qmm-tiled@128x64x2x8x2x1,qmm-tiled@64x128x4x4x2x1
echo "t $(date -u +%T) the whole GPU suite"
timeout $(( 575 - ($(date +%s) - t0) )) .gpu/bin/test-gpu > $o/suite.log 2>&1; echo rc=$? >> $o/suite.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/suite.log | tail -20; gzip -9 $o/suite.log
tar czf $OUT/r104a.tgz -C $OUT r104a && echo "end $(date -u +%T)"
