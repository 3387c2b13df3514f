#!/usr/bin/env bash
# run 111 call A: time call D's qmm-wgmma (raw loads until their step, fence before new loads, pipe 1/2) against qmm-tiled,
# then an Nsight profile of the 256-row plan and the device ptxas report of its PTX.
set -u
o=$OUT/a; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $o/gpu.txt 2>&1; cat $o/gpu.txt
for rows in 128 256 512; do
  .gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --rows $rows --kernel qmm-tiled,qmm-wgmma@3x1,qmm-wgmma@3x2,qmm-wgmma@2x1,qmm-wgmma@2x2 > $o/bench-$rows.log 2>&1
  grep -E "graph replay|ERROR|FAILED max" $o/bench-$rows.log
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
B="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256 --kernel qmm-wgmma@3x2"
timeout 240 $NCU --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active -k regex:QmmWgmma --launch-skip 2 --launch-count 1 -o $o/wg .gpu/bin/tornado --backend cuda $B > $o/ncu.log 2>&1; echo "ncu rc=$?"
$NCU --import $o/wg.ncu-rep --print-summary none > $o/ncu-wg.txt 2>&1
grep -E "Duration|Issue Slots Busy|No Eligible|stalled_[a-z_]*_per_issue_active.ratio +[a-z]* +[0-9.]*[1-9]|gmma|inst_executed|Bank|bank|Registers|Achieved Occ" $o/ncu-wg.txt | head -60
$NCU --import $o/wg.ncu-rep --page source --csv --print-source sass > $o/wg-source.csv 2>$o/source.err; echo "source rc=$? lines $(wc -l < $o/wg-source.csv)"
gzip $o/wg-source.csv; rm -f $o/wg.ncu-rep
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null | head -1)
.gpu/bin/tornado ptx --specialize=groupSize=64,dtype=0,wg=3,pipe=2 sirocco.kernels.quant.QmmWgmmaKernel::qmm 2>/dev/null | sed '/^\/\/ resources/d' | grep -v '^tornado:' > $o/q.ptx
$PTXAS -arch=sm_90a -v $o/q.ptx -o $o/q.cubin > $o/ptxas.log 2>&1; grep -E "Used|C75|serial" $o/ptxas.log; rm -f $o/q.cubin
cd $OUT && tar czf a.tgz a && rm -rf a
