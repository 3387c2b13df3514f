#!/usr/bin/env bash
# run 106, call 2: qmm-mma-async with 6-bit codes (new) against qmv-rows (the 6-bit default until now),
# bf16/f16, g64/g128, 1-96 rows; the shipped-kernel differential suite (6-bit specializations against the
# Java backend) and the quant op / default-policy GPU tests; every format at rows 1 and 6 through the op.
set -u
t0=$(date +%s)
o=$OUT/r106b; mkdir -p $o
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
K=qmm-mma-async,qmv-rows
run b6 100 --mode affine --bits 6 --group 64 --dtype bf16 --rows 1,2,4,6,8,16,32 --kernel $K
run b6h 50 --mode affine --bits 6 --group 64 --dtype f16 --rows 1,6,16 --kernel $K
run b6g 50 --mode affine --bits 6 --group 128 --dtype bf16 --rows 1,6,16 --kernel $K
run b6t 70 --mode affine --bits 6 --group 64 --dtype bf16 --rows 64,72,96 --kernel $K
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
echo "== tests"; grep -E "tests (successful|failed|skipped|aborted)|✘|shipped kernels:|rc=" $o/tests.log | tail -14
grep -E "QmmMmaAsyncKernel.qmm\{bits=6" $o/tests.log | head -8
run fm 60 --sweep-formats --rows 1,6 --kernel auto
gzip -f $o/tests.log; tar -C $OUT -czf $OUT/r106b.tgz r106b
echo "end $(( $(date +%s) - t0 )) s"
