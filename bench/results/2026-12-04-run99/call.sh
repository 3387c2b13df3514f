set -u
W=/tmp/w99; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B="--backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits 4"
run() { name=$1; shift; timeout 150 "$@" > $W/$name.log 2>&1; echo "$name rc=$? $(date -u +%T)"; grep -E "graph replay|ERROR|FAILED|matched" $W/$name.log | sed -E 's/graph replay \(50 launches per replay\): //' | cut -c1-100; }
run auto $T $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 1,2,4,6,7,8,16,32 --kernel auto
timeout 300 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest > $W/tests.log 2>&1; echo "tests rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/tests.log; grep -B2 -A12 "✘" $W/tests.log | head -30
cd $W && gzip tests.log && tar czf $OUT/call99.tgz .
