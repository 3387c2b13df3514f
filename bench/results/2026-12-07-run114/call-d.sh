#!/usr/bin/env bash
# run 114 call D: after call C (this run's first call) put qmm-wgmma at 96.3 us against qmm-tiled's 92.5
# at 256 rows (H100), ask Nsight Compute why: stall reasons, pipe use and memory of qmm-wgmma@3x1x3 and
# qmm-tiled. Before that the carveout test that has never run on a GPU; after it, the whole GPU suite.
set -u
o=$OUT/d; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
timeout 120 .gpu/bin/test-gpu --select-class sirocco.runtime.cuda.LargeSharedGpuTest > $o/large.log 2>&1; echo "large-shared rc=$?"; grep -E "tests (successful|failed)" $o/large.log
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
P="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256"
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section SchedulerStats"
M="--metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,regex:sm__pipe_tensor.*cycles_active.avg.pct_of_peak_sustained_active"
prof() { # name kernel-regex kernel
  timeout 150 $NCU --clock-control none $S $M -k regex:$2 --launch-skip 2 --launch-count 1 -o $o/$1 .gpu/bin/tornado --backend cuda $P --kernel $3 > $o/ncu-$1.log 2>&1; echo "ncu $1 rc=$?"
  $NCU --import $o/$1.ncu-rep --print-summary none > $o/$1.txt 2>&1
  grep -E "Duration|Registers Per|Theoretical Occ|Achieved Occ|No Eligible|Issued Warp|Eligible Warps|Active Warps Per|stalled_[a-z_]*_per_issue_active.ratio +[a-z]* +[0-9.]*[1-9]|inst_executed|pipe_tensor|Throughput|Hit Rate|Executed Ipc" $o/$1.txt | sed 's/  */ /g' | head -45
  rm -f $o/$1.ncu-rep
}
prof wg QmmWgmma qmm-wgmma@3x1x3
prof tiled QmmTiled qmm-tiled
timeout 300 .gpu/bin/test-gpu > $o/suite.log 2>&1; echo "suite rc=$?"; grep -E "tests (successful|failed|aborted|skipped)" $o/suite.log; grep -E "^.*(✘|FAILED)" $o/suite.log | head -10
gzip $o/*.log $o/*.txt 2>/dev/null; true
