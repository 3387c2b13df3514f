#!/usr/bin/env bash
# run 103, call 3 (and the whole GPU suite): tensorBias gate (f16 and g128 two-tile back on the float path), new against adfde98 (base); rounds/stages on the new kernel at 80/96/132 SMs
set -u
o=$OUT/r103c; mkdir -p $o
echo "start $(date -u +%T) new=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
rm -rf /tmp/gb && cp -r .gpu /tmp/gb && cp bench/results/tmp/base-lib/*.jar /tmp/gb/lib/ && echo adfde98 > /tmp/gb/COMMIT
A="--mode affine --bits 4 --dtype bf16"
S="--copies 8 --repeats 10 --n 12288 --k 4096"
run() { # tag bundle args...
  local tag=$1 b=$2; shift 2
  timeout 100 $b/bin/tornado --backend cuda bench qmm $S "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag"; grep -E "graph replay|FAILED|ERROR|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine 4-bit //; s/, target.*//'
}
run f16-new .gpu --mode affine --bits 4 --dtype f16 --group 64 --rows 1,8,16 --kernel auto
run f16-base /tmp/gb --mode affine --bits 4 --dtype f16 --group 64 --rows 1,8,16 --kernel auto
run g128-new .gpu $A --group 128 --rows 1,8,16 --kernel auto
run g128-base /tmp/gb $A --group 128 --rows 1,8,16 --kernel auto
run g64-new .gpu $A --group 64 --rows 1,2,4,6,7,8,16,32 --kernel auto
run g64-base /tmp/gb $A --group 64 --rows 1,2,4,6,7,8,16,32 --kernel auto
V=qmm-mma-async@16x2,qmm-mma-async@16x2x1x1x0x2,qmm-mma-async@16x2x1x1x0x4,qmm-mma-async@16x3
for sms in 80 96 132; do
run rb-sms$sms .gpu $A --group 64 --rows 2,8 --sms $sms --kernel $V
done
echo "t $(date -u +%T) the whole GPU suite"
timeout 420 .gpu/bin/test-gpu > $o/suite.log 2>&1; echo rc=$? >> $o/suite.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/suite.log | tail -20; gzip -9 $o/suite.log
tar czf $OUT/r103c.tgz -C $OUT r103c && echo "end $(date -u +%T)"
