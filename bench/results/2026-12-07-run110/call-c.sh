#!/usr/bin/env bash
# run 110 call C: timings after the bank-conflict-free x copies, then where qmm-wgmma@3 stalls at 256 rows (Nsight warp states, memory tables, per-SASS stall samples).
set -u
o=$OUT/c; mkdir -p $o
# First the timings of this bundle (x copies by (row, t) cells: 32 banks per warp instead of 4).
for rows in 128 256 512; do
  .gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --rows $rows --kernel qmm-tiled,qmm-wgmma@3,qmm-wgmma@2 > $o/bench-$rows.log 2>&1
  grep -E "graph replay|ERROR|FAILED max" $o/bench-$rows.log
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
B="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256 --kernel qmm-wgmma@3"
timeout 240 $NCU --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active -k regex:QmmWgmma --launch-skip 2 --launch-count 1 -o $o/wg .gpu/bin/tornado --backend cuda $B > $o/ncu.log 2>&1; echo "ncu rc=$?"
$NCU --import $o/wg.ncu-rep --print-summary none > $o/ncu-wg.txt 2>&1
grep -E "Duration|Issue Slots Busy|No Eligible|stalled_[a-z_]*_per_issue_active.ratio +[a-z]* +[0-9.]*[1-9]|gmma|hmma|inst_executed|Bank|bank|Registers|Achieved Occ" $o/ncu-wg.txt | head -60
$NCU --import $o/wg.ncu-rep --page source --csv --print-source sass > $o/wg-source.csv 2>$o/source.err; echo "source rc=$? lines $(wc -l < $o/wg-source.csv)"
gzip $o/wg-source.csv; rm -f $o/wg.ncu-rep
# The device's own ptxas on the kernel's PTX, and its SASS (no disassembler on the build machine).
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null | head -1)
CUOBJ=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
.gpu/bin/tornado ptx --specialize=groupSize=64,dtype=0,wg=3 sirocco.kernels.quant.QmmWgmmaKernel::qmm 2>/dev/null | sed '/^\/\/ resources/d' | grep -v '^tornado:' > $o/q.ptx
$PTXAS -arch=sm_90a -v $o/q.ptx -o $o/q.cubin > $o/ptxas.log 2>&1; cat $o/ptxas.log | grep -E "Used|C75|serial"
$CUOBJ -sass $o/q.cubin > $o/q.sass 2>&1; grep -c HGMMA $o/q.sass; rm -f $o/q.cubin
