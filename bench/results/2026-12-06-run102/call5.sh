#!/usr/bin/env bash
# run 102, call 5: reduction rounds (RB) for qmm-mma-async at 132/96/80 SMs; the op at 33-73 rows (bound 72); GPU tests; Nsight at 96 SMs
set -u
o=$OUT/run102e; mkdir -p $o
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name --format=csv,noheader
B=".gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096"
A="--mode affine --bits 4 --group 64 --dtype bf16"
V=qmm-mma-async@16x2,qmm-mma-async@16x2x1x1x0x2,qmm-mma-async@16x2x1x1x0x3,qmm-mma-async@16x2x1x1x0x6,qmm-mma-async@16x3x1x1x0x3
for sms in 132 96 80; do
  timeout 90 $B $A --rows 2,8 --sms $sms --kernel $V > $o/rb-sms$sms.log 2>&1; echo rc=$? >> $o/rb-sms$sms.log
  echo "== sms $sms"; grep -E "graph replay|FAILED|ERROR|rc=" $o/rb-sms$sms.log | sed 's/graph replay (50 launches per replay)://'
done
timeout 90 $B $A --rows 16,32,64 --kernel qmm-mma-async@16x2x2,qmm-mma-async@16x2x2x1x0x2,qmm-mma-async@16x2x2x1x0x3 > $o/rb-rt2.log 2>&1; echo rc=$? >> $o/rb-rt2.log
grep -E "graph replay|FAILED|ERROR|rc=" $o/rb-rt2.log | sed 's/graph replay (50 launches per replay)://'
echo "== the op at 33-73 rows"
timeout 90 $B $A --rows 33,40,48,64,72,73 --kernel auto > $o/auto72.log 2>&1; echo rc=$? >> $o/auto72.log
grep -E "graph replay|FAILED|ERROR|rc=" $o/auto72.log | sed 's/graph replay (50 launches per replay)://'
echo "t $(date -u +%T)"
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/tests.log | tail -20; gzip -9 $o/tests.log
echo "t $(date -u +%T)"
NCU=/usr/local/cuda/bin/ncu
for pl in "96 qmm-mma-async@16x2" "96 qmm-mma-async@16x2x1x1x0x3"; do set -- $pl
timeout 100 $NCU --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active \
  -k regex:QmmMmaAsync --launch-skip 3 --launch-count 1 .gpu/bin/tornado --backend cuda bench qmm --n 12288 --k 4096 $A --copies 8 --repeats 2 --rows 2 --sms $1 --kernel $2 > $o/ncu-$1-${2#*@}.txt 2>&1; echo "ncu $pl rc=$?"
grep -E "Duration|Registers Per|Issued Ipc|No Eligible|Eligible Warps|DRAM Throughput|pipe_[a-z]+.sum|inst_executed.sum|hmma|pipe_alu.avg" $o/ncu-$1-${2#*@}.txt | head -16
grep -E "stalled_[a-z_]+_per_issue_active.ratio +[0-9.]+" $o/ncu-$1-${2#*@}.txt | awk '{ if ($NF+0 >= 0.05) print $1, $NF }'
done
echo "end $(date -u +%T)"
