#!/usr/bin/env bash
# run 109, call C (bundle of 1f0cea0: word-wise tiled weights reverted, 32-warp async plans hinted): issue #7's rows
# through the op, the 32-warp plan that failed to launch in call A, and formats not timed before (5-bit f16; 3/5-bit
# g128 bf16), 12288x4096.
set -u
t0=$(date +%s)
o=$OUT/r109c; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096 --mode affine"
run() { # tag secs args...
  local tag=$1 t=$2; shift 2
  local a=$(date +%s)
  timeout $t .gpu/bin/tornado --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "read-only|graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
run issue 100 bench qmm $S --bits 4 --group 64 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256
run ks32 60 bench qmm $S --bits 4 --group 64 --dtype bf16 --rows 1,8 --kernel qmm-mma-async,qmm-mma-async@32x2x1x1x0x1x1
run b5f16 60 bench qmm $S --bits 5 --group 64 --dtype f16 --rows 1,6,32
run b3g128 60 bench qmm $S --bits 3 --group 128 --dtype bf16 --rows 1,6,32,64
run b5g128 60 bench qmm $S --bits 5 --group 128 --dtype bf16 --rows 1,6,32,64
tar -C $OUT -czf $OUT/r109c.tgz r109c && rm -rf $o
echo "end $(( $(date +%s) - t0 )) s"
