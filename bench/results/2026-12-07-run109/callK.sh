#!/usr/bin/env bash
# run 109, call K: qmm-mma-async's 6-bit pairs by byte permute (QmmMmaFragments.pair6, uncommitted on 8339b2f) against
# 8339b2f's kernels jar (.gpu/base/, a copy of the bundle), interleaved; then the final validation of this bundle: the
# JIT and quant GPU tests, issue #7's rows and every format at rows 1 and 6 through the op.
set -u
t0=$(date +%s)
o=$OUT/r109k; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
rm -rf /tmp/base && cp -r .gpu /tmp/base && cp .gpu/base/*.jar /tmp/base/lib/ && echo "base jar: $(ls .gpu/base)"
S="--copies 8 --repeats 10 --n 12288 --k 4096"
run() { # tag secs launcher args...
  local tag=$1 t=$2 l=$3; shift 3
  local a=$(date +%s)
  timeout $t $l --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "read-only|graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
for rep in 1 2; do
  run base-b6-$rep 60 /tmp/base/bin/tornado bench qmm $S --mode affine --bits 6 --group 64 --dtype bf16 --rows 1,6,32 --kernel qmm-mma-async
  run new-b6-$rep 60 .gpu/bin/tornado bench qmm $S --mode affine --bits 6 --group 64 --dtype bf16 --rows 1,6,32 --kernel qmm-mma-async
done
run base-b6-f16 60 /tmp/base/bin/tornado bench qmm $S --mode affine --bits 6 --group 128 --dtype f16 --rows 1,16 --kernel qmm-mma-async
run new-b6-f16 60 .gpu/bin/tornado bench qmm $S --mode affine --bits 6 --group 128 --dtype f16 --rows 1,16 --kernel qmm-mma-async
run issue 100 .gpu/bin/tornado bench qmm $S --mode affine --bits 4 --group 64 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256
run formats 150 .gpu/bin/tornado bench qmm $S --sweep-formats --rows 1,6
a=$(date +%s)
timeout 300 .gpu/bin/test-gpu --select-class sirocco.jit.GpuDifferentialTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo "tests rc=$? ($(( $(date +%s) - a )) s)"
grep -E "tests (successful|failed|skipped|aborted)|✘|shipped kernels:" $o/tests.log | tail -14
gzip $o/tests.log; tar -C $OUT -czf $OUT/r109k.tgz r109k && rm -rf $o
echo "end $(( $(date +%s) - t0 )) s"
