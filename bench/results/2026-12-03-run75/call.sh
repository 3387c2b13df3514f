set -u
W=/tmp/w75; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 130 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.dispatch.quant.QmmOpTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -20
Q="--mode affine --copies 8 --bits 4 --repeats 10"
K=qmm-mma-splitk@16x1x1,qmm-mma-splitk,qmm-mma
for r in 1 2; do
timeout 120 $T --backend cuda bench qmm $Q --n 12288 --k 4096 --group 64 --dtype bf16 --rows 4,8,9,12,16,24,32,48 --kernel $K > $W/bf-$r.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/bf-$r.log | cut -c1-100
done
timeout 90 $T --backend cuda bench qmm $Q --n 12288 --k 4096 --group 64 --dtype f16 --rows 4,16,32 --kernel $K > $W/f16.log 2>&1; grep -E "g64 +[0-9]+ " $W/f16.log | cut -c1-100
timeout 90 $T --backend cuda bench qmm $Q --n 12288 --k 4096 --group 128 --dtype bf16 --rows 4,16,32 --kernel $K > $W/g128.log 2>&1; grep -E "g128 +[0-9]+ " $W/g128.log | cut -c1-100
timeout 90 $T --backend cuda bench qmm $Q --n 4096 --k 4096 --group 64 --dtype bf16 --rows 4,16,32,48 --kernel $K > $W/n4k.log 2>&1; grep -E "g64 +[0-9]+ " $W/n4k.log | cut -c1-100
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call75.tgz .
