#!/bin/bash
# run 110 call B: qmm-wgmma against qmm-tiled, 12288 x 4096 4-bit, 64-512 rows.
set -u
mkdir -p $OUT/b
B=".gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4"
for rows in 64 128 256 512; do
  $B --group 64 --dtype bf16 --rows $rows --kernel qmm-tiled,qmm-wgmma@3,qmm-wgmma@2,qmm-wgmma@1 > $OUT/b/bench-$rows.log 2>&1
  grep -E "graph replay|ERROR" $OUT/b/bench-$rows.log
done
$B --group 128 --dtype f16 --rows 256 --kernel qmm-tiled,qmm-wgmma@3 > $OUT/b/bench-256-f16-g128.log 2>&1
grep -E "graph replay|ERROR" $OUT/b/bench-256-f16-g128.log
$B --group 32 --dtype bf16 --rows 256 --kernel qmm-tiled,qmm-wgmma@3 > $OUT/b/bench-256-g32.log 2>&1
grep -E "graph replay|ERROR" $OUT/b/bench-256-g32.log
