#!/usr/bin/env bash
# run 106, call 1: qmm-mma-async with 2-bit codes (new) against qmv-rows (the 2-bit default until now),
# bf16/f16, g64/g128, 1-72 rows; 4-bit rows as the machine's reference; the shipped-kernel differential
# suite (the new 2-bit specializations against the Java backend) and the kernel's own GPU cases.
set -u
t0=$(date +%s)
o=$OUT/r106a; mkdir -p $o
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
run b2 100 --mode affine --bits 2 --group 64 --dtype bf16 --rows 1,2,4,6,8,16,32 --kernel $K
run b2h 50 --mode affine --bits 2 --group 64 --dtype f16 --rows 1,6,16 --kernel $K
run b2g 50 --mode affine --bits 2 --group 128 --dtype bf16 --rows 1,6,16 --kernel $K
run b2t 70 --mode affine --bits 2 --group 64 --dtype bf16 --rows 48,64,72,96 --kernel $K
run b4 40 --mode affine --bits 4 --group 64 --dtype bf16 --rows 1,6,8 --kernel auto
timeout 200 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
echo "== tests"; grep -E "tests (successful|failed|skipped|aborted)|✘|FAIL|shipped kernels:|rc=" $o/tests.log | tail -12
grep -E "QmmMmaAsyncKernel.qmm\{bits=2" $o/tests.log | head -8
run fm 60 --sweep-formats --rows 1,6 --kernel auto
gzip -f $o/tests.log; tar -C $OUT -czf $OUT/r106a.tgz r106a
echo "end $(( $(date +%s) - t0 )) s"
