#!/usr/bin/env bash
# run 113 call C (run 112's call A never started; ~13 minutes of device time left): the shipped-kernel
# differential (the copy plan's first GPU run), 256 rows for every plan shape with resident blocks per SM
# (threadInfo), then carveout 100 and 128/512 rows if time is left. Most important first.
set -u
o=$OUT/c; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
B="bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
K=qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3,qmm-wgmma@2x1x3,qmm-wgmma@2x2x3,qmm-wgmma@1x1x3,qmm-wgmma@1x2x3,qmm-wgmma@4x2x3
bench() { # name rows jvm-flags
  timeout 150 .gpu/bin/tornado --jvm="-Dsirocco.threadInfo=true $3" --backend cuda $B --rows $2 --kernel $K > $o/bench-$1-$2.log 2>&1
  echo "== $1 rows $2 rc=$?"; grep -E "graph replay|ERROR|FAILED max|Exception" $o/bench-$1-$2.log | sed 's/(50 launches per replay)//' | cut -c1-150
  grep "sirocco launch" $o/bench-$1-$2.log | grep -E "Qmm(Wgmma|Tiled)" | sort -u | sed 's/^sirocco launch //' | cut -c1-220
  gzip $o/bench-$1-$2.log
}
timeout 120 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/diff.log 2>&1; echo "diff rc=$?"
grep -E "shipped kernels:|FAIL" $o/diff.log | cut -c1-200 | tail -6; gzip $o/diff.log
bench drv 256 ""
bench c100 256 "-Dsirocco.sharedCarveout=100"
bench drv 128 ""
bench drv 512 ""
