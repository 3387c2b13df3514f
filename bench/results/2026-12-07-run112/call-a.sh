#!/usr/bin/env bash
# run 112 call A: qmm-wgmma with step-invariant copy offsets (copyPlan) and CSE-able scale halves.
# Most important first (the call may be cut short): 256-row timings of every plan shape, the
# shipped-kernel differential, resident blocks per SM (threadInfo) with the driver's carveout and
# with -Dsirocco.sharedCarveout=100, 256 rows with that carveout, 128/512 rows, LargeSharedGpuTest, Nsight.
set -u
o=$OUT/a; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee $o/gpu.txt
B="bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
K=qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3,qmm-wgmma@2x1x3,qmm-wgmma@2x2x3,qmm-wgmma@1x1x3,qmm-wgmma@1x2x3,qmm-wgmma@4x2x3
bench() { # carveout rows
  J=""; [ $1 = 100 ] && J="--jvm=-Dsirocco.sharedCarveout=100"
  .gpu/bin/tornado $J --backend cuda $B --rows $2 --kernel $K > $o/bench-$1-$2.log 2>&1
  echo "== carveout $1 rows $2"; grep -E "graph replay|ERROR|FAILED max|Exception" $o/bench-$1-$2.log | sed 's/(50 launches per replay)//' | cut -c1-150
}
info() { # carveout: the first launch line of each plan
  .gpu/bin/tornado --jvm="-Dsirocco.threadInfo=true $( [ $1 = 100 ] && echo -Dsirocco.sharedCarveout=100)" --backend cuda bench qmm --copies 1 --repeats 1 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --rows 256 --kernel $K > $o/info-$1.log 2>&1
  echo "== threadInfo carveout $1"; grep "sirocco launch" $o/info-$1.log | grep -E "Qmm(Wgmma|Tiled)" | sort -u | sed 's/^sirocco launch //' | cut -c1-220
}
bench drv 256
.gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/diff.log 2>&1; echo "diff rc=$?"
grep -E "shipped kernels:|FAIL" $o/diff.log | cut -c1-200 | tail -6; gzip $o/diff.log
info drv; info 100
bench 100 256
bench drv 128; bench drv 512
.gpu/bin/test-gpu --select-class sirocco.runtime.cuda.LargeSharedGpuTest > $o/large.log 2>&1; echo "large-shared rc=$?"; tail -5 $o/large.log
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
P="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256"
timeout 150 $NCU --clock-control none --section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum -k regex:QmmWgmma --launch-skip 2 --launch-count 1 -o $o/wg .gpu/bin/tornado --backend cuda $P --kernel qmm-wgmma@3x2x3 > $o/ncu.log 2>&1; echo "ncu rc=$?"
$NCU --import $o/wg.ncu-rep --print-summary none > $o/ncu-wg.txt 2>&1
grep -E "Duration|Registers Per|Block Limit|Theoretical Occ|Achieved Occ|No Eligible|stalled_[a-z_]*_per_issue_active.ratio +[a-z]* +[0-9.]*[1-9]|inst_executed|Throughput" $o/ncu-wg.txt | head -40
rm -f $o/wg.ncu-rep; gzip $o/*.log $o/ncu-wg.txt 2>/dev/null; true
