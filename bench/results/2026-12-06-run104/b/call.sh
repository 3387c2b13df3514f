#!/usr/bin/env bash
# run 104, call 2: E2M1 pairs in place in qmm-mma (bundle 3609c2d, "new") against 994c3f9's
# tornado-kernels jar ("base") with their GPU tests; then qmm-tiled plans against the default over
# 64-512 rows (4-bit g64 bf16, 12288x4096), f16 / g128 / g32 / 8-bit at 256 and 512 rows, n = 14336
set -u
t0=$(date +%s)
o=$OUT/r104b; mkdir -p $o
echo "start $(date -u +%T) new=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
rm -rf /tmp/gb && cp -r .gpu /tmp/gb && cp bench/results/tmp/base-lib/*.jar /tmp/gb/lib/ && echo 994c3f9 > /tmp/gb/COMMIT
S="--copies 8 --repeats 10 --k 4096"
left() { echo $(( 400 - ($(date +%s) - t0) )); }
run() { # tag bundle secs args...
  local tag=$1 b=$2 t=$3; shift 3
  local l=$(left); [ $l -lt 20 ] && { echo "== $tag skipped (time)"; return; }
  [ $t -gt $l ] && t=$l
  local a=$(date +%s)
  timeout $t $b/bin/tornado --backend cuda bench qmm $S "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
run mx-new .gpu 60 --n 12288 --mode mxfp4 --dtype bf16 --rows 1,2,3,6,8,16,32 --kernel qmm-mma
run mx-base /tmp/gb 60 --n 12288 --mode mxfp4 --dtype bf16 --rows 1,2,3,6,8,16,32 --kernel fp-qmv,qmm-mma
run nv-new .gpu 40 --n 12288 --mode nvfp4 --dtype bf16 --rows 1,2,6,16 --kernel qmm-mma
run nv-base /tmp/gb 40 --n 12288 --mode nvfp4 --dtype bf16 --rows 1,2,6,16 --kernel fp-qmv,qmm-mma
run mxf16-new .gpu 40 --n 12288 --mode mxfp4 --dtype f16 --rows 2,6,16 --kernel qmm-mma
run mxf16-base /tmp/gb 40 --n 12288 --mode mxfp4 --dtype f16 --rows 2,6,16 --kernel fp-qmv,qmm-mma
timeout 170 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
echo "== tests"; grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/tests.log | tail -12
P4=qmm-tiled@128x96x3x4x2x1,qmm-tiled@256x96x3x8x2x1,qmm-tiled@256x96x3x4x2x1,qmm-tiled@256x128x4x8x2x1,qmm-tiled@192x96x3x8x2x1,qmm-tiled@128x128x4x4x2x1
run sweep .gpu 150 --n 12288 --mode affine --bits 4 --group 64 --dtype bf16 --rows 64,128,192,256,384,512 --kernel $P4
P2=qmm-tiled@128x96x3x4x2x1,qmm-tiled@256x96x3x8x2x1,qmm-tiled@256x128x4x8x2x1
run f16 .gpu 50 --n 12288 --mode affine --bits 4 --group 64 --dtype f16 --rows 256,512 --kernel $P2
run g128 .gpu 50 --n 12288 --mode affine --bits 4 --group 128 --dtype bf16 --rows 256,512 --kernel $P2
run g32 .gpu 50 --n 12288 --mode affine --bits 4 --group 32 --dtype bf16 --rows 256,512 --kernel $P2
run b8 .gpu 50 --n 12288 --mode affine --bits 8 --group 64 --dtype bf16 --rows 256,512 --kernel qmm-tiled@128x96x3x4x2x0,qmm-tiled@256x96x3x8x2x0
run n14336 .gpu 60 --n 14336 --mode affine --bits 4 --group 64 --dtype bf16 --rows 128,256,512 --kernel qmm-tiled@128x128x4x4x2x1,qmm-tiled@256x128x4x8x2x1,qmm-tiled@256x64x2x8x2x1
echo "elapsed $(( $(date +%s) - t0 )) s"
gzip -9 $o/tests.log; tar czf $OUT/r104b.tgz -C $OUT r104b && echo "end $(date -u +%T)"
