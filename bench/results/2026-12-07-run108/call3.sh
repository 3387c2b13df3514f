#!/usr/bin/env bash
# run 108, call 3: issue #7's rows through the op with FU = 1 the default (bundle of call 2 or later), and plan
# variants with FU = 1 at 1 and 8 rows (stages, a 32-warp k split, early refill, reduction rounds), 4-bit g64 bf16.
set -u
t0=$(date +%s)
o=$OUT/r108c; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
run() { # tag secs args...
  local tag=$1 t=$2; shift 2
  local a=$(date +%s)
  timeout $t .gpu/bin/tornado --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "read-only|graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
run issue 90 bench qmm $S --rows 1,2,4,6,7,8,16,32,256
run plans 120 bench qmm $S --rows 1,8 --kernel qmm-mma-async,qmm-mma-async@16x3x1x1x0x1x1,qmm-mma-async@32x2x1x1x0x1x1,qmm-mma-async@16x2x1x1x1x1x1,qmm-mma-async@16x2x1x1x0x2x1,qmm-mma-async@16x2x1x1x0x3x1
tar -C $OUT -czf $OUT/r108c.tgz r108c
echo "end $(( $(date +%s) - t0 )) s"
