#!/usr/bin/env bash
# run 112 call B (call A never started; ~6 minutes of device time left): call A's essentials only.
# The shipped-kernel differential (the new copy plan's first GPU run), 256-row timings, resident blocks per SM.
set -u
o=$OUT/b; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
.gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/diff.log 2>&1; echo "diff rc=$?"
grep -E "shipped kernels:|FAIL" $o/diff.log | cut -c1-200 | tail -6; gzip $o/diff.log
K=qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@1x1x3,qmm-wgmma@2x1x3
.gpu/bin/tornado --jvm=-Dsirocco.threadInfo=true --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --rows 256 --kernel $K > $o/bench-256.log 2>&1
grep -E "graph replay|ERROR|FAILED max|Exception" $o/bench-256.log | sed 's/(50 launches per replay)//' | cut -c1-150
grep "sirocco launch" $o/bench-256.log | grep -E "Qmm(Wgmma|Tiled)" | sort -u | sed 's/^sirocco launch //' | cut -c1-220
gzip $o/bench-256.log
