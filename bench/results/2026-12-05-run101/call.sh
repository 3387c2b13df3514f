#!/usr/bin/env bash
# run 101: the adopted default (async rt=2 at 9-32 rows) through the op, f16/g128 two tiles, 1 row at other shapes, GPU tests
set -u
o=$OUT/run101; mkdir -p $o
nvidia-smi > $o/nvidia-smi.txt 2>&1
B=".gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10"
S="--n 12288 --k 4096"
A="--mode affine --bits 4 --group 64 --dtype bf16"
echo "== auto"; timeout 150 $B $S $A --rows 1,2,4,6,7,8,9,12,16,24,32,256 --kernel auto --json $o/auto.json > $o/auto.log 2>&1; echo rc=$? >> $o/auto.log
grep -E "graph replay|FAILED|rc=" $o/auto.log | head -40
echo "== two tiles: f16 g64, bf16 g128, bf16 g64 to 48"
timeout 60 $B $S --mode affine --bits 4 --group 64 --dtype f16 --rows 16,32 --kernel qmm-mma-async,qmm-mma-splitk > $o/f16.log 2>&1; echo rc=$? >> $o/f16.log
timeout 60 $B $S --mode affine --bits 4 --group 128 --dtype bf16 --rows 16,32 --kernel qmm-mma-async,qmm-mma-splitk > $o/g128.log 2>&1; echo rc=$? >> $o/g128.log
timeout 80 $B $S $A --rows 16,32,40,48 --kernel qmm-mma-async,qmm-mma-splitk > $o/g64.log 2>&1; echo rc=$? >> $o/g64.log
grep -E "graph replay|FAILED|rc=" $o/f16.log $o/g128.log $o/g64.log
echo "== 1 row, other shapes"
for nk in "14336 4096" "12288 2048" "4096 4096"; do set -- $nk
  timeout 50 $B --n $1 --k $2 $A --rows 1 --kernel qmm-mma-async,qmv-splitk >> $o/one-row.log 2>&1; echo "rc=$? n=$1 k=$2" >> $o/one-row.log; done
grep -E "graph replay|FAILED|rc=" $o/one-row.log
echo "== GPU tests"
timeout 200 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest \
  --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QuantizeGpuTest \
  --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/test-gpu.log 2>&1; echo rc=$? >> $o/test-gpu.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/test-gpu.log | tail -30
tar czf $OUT/run101.tgz -C $OUT run101
