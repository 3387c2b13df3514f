#!/usr/bin/env bash
# run 105, call 1 (bundle a37e8883b5a6): qmm-mma-fp-async (new) against qmm-mma and fp-qmv for mxfp4/nvfp4/mxfp8,
# its GPU tests with the quant op's and policy's (these also cover badef27's tiled plans), then the
# issue's rows and the tall-plan rows through the op, every format at 2 rows
set -u
t0=$(date +%s)
o=$OUT/r105a; mkdir -p $o
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096"
left() { echo $(( 570 - ($(date +%s) - t0) )); }
run() { # tag secs args...
  local tag=$1 t=$2; shift 2
  local l=$(left); [ $l -lt 20 ] && { echo "== $tag skipped (time)"; return; }
  [ $t -gt $l ] && t=$l
  local a=$(date +%s)
  timeout $t .gpu/bin/tornado --backend cuda bench qmm $S "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
F=qmm-mma-fp-async,qmm-mma
run mx 75 --mode mxfp4 --dtype bf16 --rows 1,2,4,8,16,32 --kernel $F,fp-qmv
run nv 60 --mode nvfp4 --dtype bf16 --rows 1,2,8,16,32 --kernel $F,fp-qmv
run mx16 45 --mode mxfp4 --dtype f16 --rows 1,2,8,16 --kernel $F
run nv16 40 --mode nvfp4 --dtype f16 --rows 2,8,16 --kernel $F
run mx8 60 --mode mxfp8 --dtype bf16 --rows 1,2,8,16 --kernel $F,fp-qmv
run mx8h 30 --mode mxfp8 --dtype f16 --rows 2,8 --kernel $F
run st 45 --mode mxfp4 --dtype bf16 --rows 2,16 --kernel qmm-mma-fp-async@16x3,qmm-mma-fp-async@16x2x1,qmm-mma-fp-async@16x2x2
timeout 170 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
echo "== tests"; grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/tests.log | tail -12
run rows 100 --mode affine --bits 4 --group 64 --dtype bf16 --rows 1,2,4,8,16,32,192,256,384,512 --kernel auto
run formats2 60 --sweep-formats --rows 2 --kernel auto
echo "elapsed $(( $(date +%s) - t0 )) s"
gzip -9 $o/tests.log; tar czf $OUT/r105a.tgz -C $OUT r105a && echo "end $(date -u +%T)"
