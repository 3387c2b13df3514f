#!/usr/bin/env bash
# run 114 call E: qmm-wgmma with x copied a row (one 128-byte line) per quarter warp (LBO 2064) and
# the odd steps' scale/bias pairs read from the even step's slot (half the pair copies), after call D
# found L2 77% busy. The differential first (a missing pair would show there), then 256/128/512 rows
# against qmm-tiled in the same call, then Nsight's memory and stall view of qmm-wgmma@3x1x3.
set -u
o=$OUT/e; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/diff.log 2>&1; echo "diff rc=$?"
grep -E "shipped kernels:|FAIL" $o/diff.log | cut -c1-200 | tail -6
B="bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
bench() { # rows kernels
  timeout 120 .gpu/bin/tornado --backend cuda $B --rows $1 --kernel $2 > $o/bench-$1.log 2>&1
  echo "== rows $1 rc=$?"; grep -E "graph replay|ERROR|FAILED max|Exception" $o/bench-$1.log | sed 's/(50 launches per replay)//' | cut -c1-150
}
bench 256 qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3,qmm-wgmma@3x1x4,qmm-wgmma@2x1x3,qmm-wgmma@4x2x3
bench 128 qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3
bench 512 qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
P="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256"
timeout 120 $NCU --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,lts__t_requests.sum,lts__t_sectors.sum,l1tex__t_requests.sum -k regex:QmmWgmma --launch-skip 2 --launch-count 1 -o $o/wg .gpu/bin/tornado --backend cuda $P --kernel qmm-wgmma@3x1x3 > $o/ncu.log 2>&1; echo "ncu rc=$?"
$NCU --import $o/wg.ncu-rep --print-summary none > $o/wg.txt 2>&1
grep -E "Duration|Mem Busy|Max Bandwidth|L1/TEX Hit|L2 Hit|No Eligible|stalled_(barrier|long_scoreboard|wait|short_scoreboard)|pipe_tensor|requests|sectors" $o/wg.txt | sed 's/  */ /g'
rm -f $o/wg.ncu-rep; gzip $o/*.log $o/*.txt 2>/dev/null; true
