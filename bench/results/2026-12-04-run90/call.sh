set -u
W=/tmp/w90; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 330 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest > $W/tests.log 2>&1; echo "tests rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/tests.log; grep -B2 -A12 "✘" $W/tests.log | head -40
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 10"
timeout 120 $T $Q --rows 1,2,4,6,7,8,16,32,256 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$? $(date -u +%T)"
grep -E "read-only|g64 +[0-9]+ " $W/auto.log | sed -E 's/graph replay \(50 launches per replay\): //' | cut -c1-140
timeout 150 $T --backend cuda bench qmm --n 12288 --k 4096 --copies 8 --dtype bf16 --repeats 10 --sweep-formats --kernel auto > $W/formats.log 2>&1; echo "formats rc=$? $(date -u +%T)"
grep -E "graph replay" $W/formats.log | sed -E 's/graph replay \(50 launches per replay\): //' | cut -c1-100
grep -hE "FAILED|ERROR" $W/auto.log $W/formats.log | head
cd $W && gzip -k tests.log && rm tests.log && tar czf $OUT/call90.tgz .
