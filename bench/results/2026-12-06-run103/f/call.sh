#!/usr/bin/env bash
# run 103, call 6: g32 two-tile default through the op; GPU tests on it
set -u
o=$OUT/r103f; mkdir -p $o
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name --format=csv,noheader
timeout 60 .gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 32 --dtype bf16 --rows 8,9,16,32,64,72,73 --kernel auto > $o/g32-auto.log 2>&1; echo rc=$? >> $o/g32-auto.log
grep -E "graph replay|FAIL|ERROR|rc=[1-9]" $o/g32-auto.log | sed 's/graph replay (50 launches per replay)://; s/ *affine 4-bit //; s/, target.*//'
grep -c "OK max" $o/g32-auto.log
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/tests.log | tail -12; gzip -9 $o/tests.log
echo "end $(date -u +%T)"
