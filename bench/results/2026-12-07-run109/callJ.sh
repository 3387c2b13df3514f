#!/usr/bin/env bash
# run 109, call J: qmm-mma-async's 5-bit pairs by byte permute (QmmMmaFragments.pairUnit, bits == 5: every pair, windows at bytes 0, 2, 4; on
# Intrinsics.bytePermute, uncommitted on 0dc194a) against 0dc194a's kernels jar (.gpu/base/) in a copy of the same
# bundle, interleaved, both kernels at 1 row (the bf16 policy keeps qmv-rows there); then the quant GPU tests.
set -u
t0=$(date +%s)
o=$OUT/r109j; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
rm -rf /tmp/base && cp -r .gpu /tmp/base && cp .gpu/base/*.jar /tmp/base/lib/ && echo "base jar: $(ls .gpu/base)"
S="--copies 8 --repeats 10 --n 12288 --k 4096 --mode affine"
run() { # tag secs launcher args...
  local tag=$1 t=$2 l=$3; shift 3
  local a=$(date +%s)
  timeout $t $l --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "read-only|graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
for b in 5; do
  for v in base new; do
    L=.gpu/bin/tornado; [ $v = base ] && L=/tmp/base/bin/tornado
    run $v-b$b-g64 90 $L bench qmm $S --bits $b --group 64 --dtype bf16 --rows 1,2,6,32 --kernel qmm-mma-async
    run $v-b$b-g128 60 $L bench qmm $S --bits $b --group 128 --dtype bf16 --rows 1,6 --kernel qmm-mma-async
  done
  run new-b$b-f16 60 .gpu/bin/tornado bench qmm $S --bits $b --group 64 --dtype f16 --rows 1,6,16 --kernel qmm-mma-async
  run qmv-b$b 60 .gpu/bin/tornado bench qmm $S --bits $b --group 64 --dtype bf16 --rows 1 --kernel qmv-rows
done
a=$(date +%s)
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo "tests rc=$? ($(( $(date +%s) - a )) s)"
grep -E "tests (successful|failed|skipped|aborted)|✘|shipped kernels:" $o/tests.log | tail -14
gzip $o/tests.log; tar -C $OUT -czf $OUT/r109j.tgz r109j && rm -rf $o
echo "end $(( $(date +%s) - t0 )) s"
