#!/bin/bash
# run 110 call E: call D's bench again with qmm-wgmma@WGxPIPE parsed (call D's bench rejected the name).
set -u
o=$OUT/e; mkdir -p $o
for rows in 128 256 512; do
  .gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --rows $rows --kernel qmm-tiled,qmm-wgmma@3x1,qmm-wgmma@3x2,qmm-wgmma@2x1,qmm-wgmma@2x2 > $o/bench-$rows.log 2>&1
  grep -E "graph replay|ERROR|FAILED max" $o/bench-$rows.log
done
