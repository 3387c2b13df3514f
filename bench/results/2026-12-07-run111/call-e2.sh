#!/usr/bin/env bash
# run 111 call E (lean; little device time left): call-e.sh's kernel, timings and the shipped-kernel differential only.
set -u
o=$OUT/e; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
for rows in 256 128 512; do
  .gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --rows $rows --kernel qmm-tiled,qmm-wgmma@3x1x3,qmm-wgmma@3x1x4,qmm-wgmma@3x2x3 > $o/bench-$rows.log 2>&1
  grep -E "graph replay|ERROR|FAILED max" $o/bench-$rows.log
done
.gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/diff.log 2>&1; echo "diff rc=$?"
grep -E "QmmWgmma.*(PASS|FAIL)|shipped kernels:" $o/diff.log | cut -c1-200 | tail -8
gzip $o/diff.log
cd $OUT && tar czf e.tgz e && rm -rf e
