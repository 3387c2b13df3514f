#!/usr/bin/env bash
# run 109, call F: qmm-tiled's 4-bit dequantization by byte permute (QmmTiledTiles.deq4 on Intrinsics.bytePermute,
# uncommitted on 8420492) against the kernels jar of 1f0cea0 (.gpu/base/) in a copy of the same bundle, interleaved;
# then the JIT's GPU differential suite (the new bytePermute test kernel among them) and the quant GPU tests.
set -u
t0=$(date +%s)
o=$OUT/r109f; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
rm -rf /tmp/base && cp -r .gpu /tmp/base && cp .gpu/base/*.jar /tmp/base/lib/ && echo "base jar: $(ls .gpu/base)"
S="--copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4"
run() { # tag secs launcher args...
  local tag=$1 t=$2 l=$3; shift 3
  local a=$(date +%s)
  timeout $t $l --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
for rep in 1 2; do
  run base-$rep 120 /tmp/base/bin/tornado bench qmm $S --group 64 --dtype bf16 --rows 128,256,512
  run new-$rep 120 .gpu/bin/tornado bench qmm $S --group 64 --dtype bf16 --rows 128,256,512
done
run base-f16 60 /tmp/base/bin/tornado bench qmm $S --group 128 --dtype f16 --rows 256
run new-f16 60 .gpu/bin/tornado bench qmm $S --group 128 --dtype f16 --rows 256
a=$(date +%s)
timeout 300 .gpu/bin/test-gpu --select-class sirocco.jit.GpuDifferentialTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo "tests rc=$? ($(( $(date +%s) - a )) s)"
grep -E "tests (successful|failed|skipped|aborted)|✘|shipped kernels:|bytePermute" $o/tests.log | tail -16
gzip $o/tests.log; tar -C $OUT -czf $OUT/r109f.tgz r109f && rm -rf $o
echo "end $(( $(date +%s) - t0 )) s"
