#!/bin/bash
# run 110 call A: qmm-wgmma (warpgroup products) correctness on the GPU and first timings.
set -u
mkdir -p $OUT/a
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv > $OUT/a/gpu.txt 2>&1
.gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $OUT/a/diff.log 2>&1
echo "diff rc=$?" >> $OUT/a/diff.log
grep -E "QmmWgmma|shipped kernels:|FAIL" $OUT/a/diff.log | head -40
for rows in 128 256 512; do
  .gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --rows $rows --kernel qmm-tiled,qmm-wgmma@3,qmm-wgmma@2,qmm-wgmma@1 > $OUT/a/bench-$rows.log 2>&1
  tail -8 $OUT/a/bench-$rows.log
done
