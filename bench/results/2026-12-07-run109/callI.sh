#!/usr/bin/env bash
# run 109, call I: the session's final bundle (as committed): the quant GPU tests and the JIT's GPU differential
# suite, issue #7's rows through the op, and every format at rows 1 and 6 through the op (3-bit now async from 1 row).
set -u
t0=$(date +%s)
o=$OUT/r109i; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096"
run() { # tag secs args...
  local tag=$1 t=$2; shift 2
  local a=$(date +%s)
  timeout $t .gpu/bin/tornado --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "read-only|graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
run issue 100 bench qmm $S --mode affine --bits 4 --group 64 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256
run formats 150 bench qmm $S --sweep-formats --rows 1,6
a=$(date +%s)
timeout 300 .gpu/bin/test-gpu --select-class sirocco.jit.GpuDifferentialTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo "tests rc=$? ($(( $(date +%s) - a )) s)"
grep -E "tests (successful|failed|skipped|aborted)|✘|shipped kernels:" $o/tests.log | tail -14
gzip $o/tests.log; tar -C $OUT -czf $OUT/r109i.tgz r109i && rm -rf $o
echo "end $(( $(date +%s) - t0 )) s"
