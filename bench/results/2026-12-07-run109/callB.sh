#!/usr/bin/env bash
# run 109, call B: qmm-tiled with word-wise weights (every thread dequantizes wpt words of the next step's tile, one per
# k16 iteration between the mmas) against the base bundle's kernels jar (.gpu/base/, the commit before the change) on
# the same machine, interleaved base/new; then the GPU tests of the shipped specializations and the quant op.
set -u
t0=$(date +%s)
o=$OUT/r109b; mkdir -p $o
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
  run base-g64-$rep 120 /tmp/base/bin/tornado bench qmm $S --group 64 --dtype bf16 --rows 128,192,256,512
  run new-g64-$rep 120 .gpu/bin/tornado bench qmm $S --group 64 --dtype bf16 --rows 128,192,256,512
done
run base-other 150 /tmp/base/bin/tornado bench qmm $S --group 64 --dtype f16 --rows 256 
run new-other 150 .gpu/bin/tornado bench qmm $S --group 64 --dtype f16 --rows 256
run base-g128 100 /tmp/base/bin/tornado bench qmm $S --group 128 --dtype bf16 --rows 256
run new-g128 100 .gpu/bin/tornado bench qmm $S --group 128 --dtype bf16 --rows 256
run base-g32 100 /tmp/base/bin/tornado bench qmm $S --group 32 --dtype bf16 --rows 256
run new-g32 100 .gpu/bin/tornado bench qmm $S --group 32 --dtype bf16 --rows 256
a=$(date +%s)
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo "tests rc=$? ($(( $(date +%s) - a )) s)"
grep -E "tests (successful|failed|skipped|aborted)|✘|shipped kernels:" $o/tests.log | tail -14
SP="--specialize=bits=4,groupSize=64,dtype=0,bm=256,bn=96,mt=3,nt=8,stages=2,xAsync=1"
.gpu/bin/tornado ptx $SP sirocco.kernels.quant.QmmTiledKernel::qmm 2>/dev/null | sed '/^\/\/ resources/d' > $o/tall-new.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90 -v $o/tall-new.ptx -o $o/t.cubin 2>&1 | grep registers; /usr/local/cuda/bin/cuobjdump -sass $o/t.cubin > $o/tall-new.sass; rm -f $o/t.cubin
gzip $o/tests.log $o/tall-new.sass $o/tall-new.ptx; tar -C $OUT -czf $OUT/r109b.tgz r109b && rm -rf $o
echo "end $(( $(date +%s) - t0 )) s"
