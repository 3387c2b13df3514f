#!/usr/bin/env bash
# run 103, call 2: g128 with one bias mma, f16, rows 12-64, the 80/96-SM proxy, new against adfde98 (base); Nsight and SASS of the new loop; GPU tests
set -u
o=$OUT/r103b; mkdir -p $o
echo "start $(date -u +%T) new=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
rm -rf /tmp/gb && cp -r .gpu /tmp/gb && cp bench/results/tmp/base-lib/*.jar /tmp/gb/lib/ && echo adfde98 > /tmp/gb/COMMIT
A="--mode affine --bits 4 --dtype bf16"
S="--copies 8 --repeats 10 --n 12288 --k 4096"
run() { # tag bundle args...
  local tag=$1 b=$2; shift 2
  timeout 100 $b/bin/tornado --backend cuda bench qmm $S "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag"; grep -E "graph replay|FAILED|ERROR|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine 4-bit //; s/, target.*//'
}
for r in 1 2; do
run g128-new$r .gpu $A --group 128 --rows 1,8,16 --kernel auto
run g128-base$r /tmp/gb $A --group 128 --rows 1,8,16 --kernel auto
done
run f16-new .gpu --mode affine --bits 4 --dtype f16 --group 64 --rows 1,8,16 --kernel auto
run f16-base /tmp/gb --mode affine --bits 4 --dtype f16 --group 64 --rows 1,8,16 --kernel auto
run mid-new .gpu $A --group 64 --rows 12,24,40,64,72 --kernel auto
run mid-base /tmp/gb $A --group 64 --rows 12,24,40,64,72 --kernel auto
for sms in 80 96; do
run sms$sms-new .gpu $A --group 64 --rows 1,4,8 --sms $sms --kernel qmm-mma-async@16x2
run sms$sms-base /tmp/gb $A --group 64 --rows 1,4,8 --sms $sms --kernel qmm-mma-async@16x2
done
echo "t $(date -u +%T)"
for c in old new; do /usr/local/cuda/bin/cuobjdump -sass bench/results/tmp/sass/$c-g64-rt1.cubin > $o/sass-$c.txt 2>&1; echo "sass $c rc=$? lines $(wc -l < $o/sass-$c.txt)"; done
NCU=/usr/local/cuda/bin/ncu
for b in .gpu /tmp/gb; do
timeout 100 $NCU --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed_pipe_uniform.sum,smsp__inst_executed.sum \
  -k regex:QmmMmaAsync --launch-skip 3 --launch-count 1 $b/bin/tornado --backend cuda bench qmm --n 12288 --k 4096 $A --group 64 --copies 8 --repeats 2 --rows 2 --sms 96 --kernel qmm-mma-async@16x2 > $o/ncu96-$(basename $b).txt 2>&1; echo "ncu $b rc=$?"
grep -E "Duration|Issued Ipc|No Eligible|DRAM Throughput|pipe_[a-z]+.sum|inst_executed.sum" $o/ncu96-$(basename $b).txt | head -12
grep -E "stalled_[a-z_]+_per_issue_active.ratio +[0-9.]+" $o/ncu96-$(basename $b).txt | awk '{ if ($NF+0 >= 0.1) print $1, $NF }'
done
echo "t $(date -u +%T)"
timeout 200 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/tests.log | tail -20; gzip -9 $o/tests.log
tar czf $OUT/r103b.tgz -C $OUT r103b && echo "end $(date -u +%T)"
