#!/usr/bin/env bash
# run 109, call D (bundle of 1f0cea0): with f16 x the op takes qmm-mma-async for 3/5-bit from 1 row
# (QmmPolicy.asyncMinRows); run 108 timed that against qmv-rows for 3-bit g128 only. Here 3- and 5-bit, g64 and g128,
# f16, at 1 and 2 rows, both kernels; then issue #7's rows through the op (an H200 was asked for).
set -u
t0=$(date +%s)
o=$OUT/r109d; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096 --mode affine"
run() { # tag secs args...
  local tag=$1 t=$2; shift 2
  local a=$(date +%s)
  timeout $t .gpu/bin/tornado --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
for b in 3 5; do for g in 64 128; do
  run f16-b$b-g$g 60 bench qmm $S --bits $b --group $g --dtype f16 --rows 1,2 --kernel qmm-mma-async,qmv-rows
done; done
run issue 100 bench qmm $S --bits 4 --group 64 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256
tar -C $OUT -czf $OUT/r109d.tgz r109d && rm -rf $o
echo "end $(( $(date +%s) - t0 )) s"
