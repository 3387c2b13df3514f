#!/usr/bin/env bash
# run 102, call 1: the op's choice; 1-8-row variants of qmm-mma-async (two blocks per SM, early refills, 32 warps); GPU differential tests
set -u
o=$OUT/run102; mkdir -p $o
nvidia-smi > $o/nvidia-smi.txt 2>&1; grep -m1 -E "H100|H200" $o/nvidia-smi.txt
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B=".gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096"
A="--mode affine --bits 4 --group 64 --dtype bf16"
timeout 150 $B $A --rows 1,2,4,6,7,8,16,32,256 --kernel auto --json $o/auto.json > $o/auto.log 2>&1; echo rc=$? >> $o/auto.log
grep -E "read-only|graph replay|FAILED|rc=" $o/auto.log | head -40; echo "t $(date -u +%T)"
V=qmm-mma-async,qmm-mma-async@16x2x1x1x1,qmm-mma-async@16x3x1x1x1,qmm-mma-async@16x2x1x2x0,qmm-mma-async@16x2x1x2x1,qmm-mma-async@32x2,qmm-mma-async@32x2x1x1x1
timeout 200 $B $A --rows 1,2,8 --kernel $V > $o/variants.log 2>&1; echo rc=$? >> $o/variants.log
grep -E "graph replay|FAILED|ERROR|rc=" $o/variants.log | head -40; echo "t $(date -u +%T)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/test-diff.log 2>&1; echo rc=$? >> $o/test-diff.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/test-diff.log | tail -20; gzip -9 $o/test-diff.log
echo "end $(date -u +%T)"
