#!/usr/bin/env bash
# run 103, call 1: qmm-mma-async with the bias term on the tensor cores (new) against adfde98 (base), same machine; GPU tests
set -u
o=$OUT/run103; mkdir -p $o
echo "start $(date -u +%T) new=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/nvidia-smi.txt
rm -rf /tmp/gb && cp -r .gpu /tmp/gb && cp bench/results/tmp/base-lib/*.jar /tmp/gb/lib/ && echo adfde98 > /tmp/gb/COMMIT
A="--mode affine --bits 4 --dtype bf16"
S="--copies 8 --repeats 10 --n 12288 --k 4096"
run() { # tag bundle args...
  local tag=$1 b=$2; shift 2
  timeout 100 $b/bin/tornado --backend cuda bench qmm $S "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag"; grep -E "graph replay|FAILED|ERROR|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine 4-bit //'
}
for r in 1 2; do
run auto-new$r .gpu $A --group 64 --rows 1,2,4,8,16,32 --kernel auto
run auto-base$r /tmp/gb $A --group 64 --rows 1,2,4,8,16,32 --kernel auto
done
for sms in 96; do
run sms$sms-new .gpu $A --group 64 --rows 2,8 --sms $sms --kernel qmm-mma-async@16x2
run sms$sms-base /tmp/gb $A --group 64 --rows 2,8 --sms $sms --kernel qmm-mma-async@16x2
done
for gr in 128 32; do
run g$gr-new .gpu $A --group $gr --rows 1,8,16 --kernel auto
run g$gr-base /tmp/gb $A --group $gr --rows 1,8,16 --kernel auto
done
run f16-new .gpu --mode affine --bits 4 --dtype f16 --group 64 --rows 1,8,16 --kernel auto
echo "t $(date -u +%T)"
timeout 300 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.jit.GpuDifferentialTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/tests.log | tail -20; gzip -9 $o/tests.log
echo "end $(date -u +%T)"
