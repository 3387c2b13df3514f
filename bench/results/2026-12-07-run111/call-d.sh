#!/usr/bin/env bash
# run 111 call D: qmm-wgmma with x in natural k order by 16-byte cp.async, the block's words by 16-byte copies and scale/bias pairs, AHEAD steps
# before their products (AHEAD 3..6, both pipes): timings, the
# shipped-kernel differential, an Nsight profile at 256 rows, the SASS listing.
set -u
o=$OUT/d; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
for rows in 128 256 512; do
  .gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --rows $rows --kernel qmm-tiled,qmm-wgmma@3x1x3,qmm-wgmma@3x1x4,qmm-wgmma@3x1x6,qmm-wgmma@3x2x4,qmm-wgmma@2x1x4,qmm-wgmma@2x2x5 > $o/bench-$rows.log 2>&1
  grep -E "graph replay|ERROR|FAILED max" $o/bench-$rows.log
done
.gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/diff.log 2>&1; echo "diff rc=$?"
grep -E "QmmWgmma.*(PASS|FAIL)|shipped kernels:" $o/diff.log | cut -c1-200 | tail -8
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
B="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256 --kernel qmm-wgmma@3x1x4"
timeout 240 $NCU --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum -k regex:QmmWgmma --launch-skip 2 --launch-count 1 -o $o/wg .gpu/bin/tornado --backend cuda $B > $o/ncu.log 2>&1; echo "ncu rc=$?"
$NCU --import $o/wg.ncu-rep --print-summary none > $o/ncu-wg.txt 2>&1
grep -E "Duration|No Eligible|stalled_[a-z_]*_per_issue_active.ratio +[a-z]* +[0-9.]*[1-9]|inst_executed|Throughput" $o/ncu-wg.txt | head -30
$NCU --import $o/wg.ncu-rep --page source --csv --print-source sass > $o/wg-source.csv 2>$o/source.err; gzip $o/wg-source.csv; rm -f $o/wg.ncu-rep
PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas 2>/dev/null | head -1)
CUOBJ=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null | head -1)
.gpu/bin/tornado ptx --specialize=groupSize=64,dtype=0,wg=3,pipe=1,ahead=4 sirocco.kernels.quant.QmmWgmmaKernel::qmm 2>/dev/null | sed '/^\/\/ resources/d' | grep -v '^tornado:' > $o/q.ptx
$PTXAS -arch=sm_90a -v $o/q.ptx -o $o/q.cubin > $o/ptxas.log 2>&1; grep -E "Used|C75|serial" $o/ptxas.log
$CUOBJ -sass $o/q.cubin > $o/q.sass 2>&1; gzip $o/q.sass; rm -f $o/q.cubin
cd $OUT && tar czf d.tgz d && rm -rf d
