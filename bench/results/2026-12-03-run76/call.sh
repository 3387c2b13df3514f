set -u
W=/tmp/w76; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.dispatch.quant.QmmOpTest --select-class sirocco.quant.QuantOpGpuTest > $W/q.log 2>&1; echo "q rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/q.log; grep -B2 -A8 "✘" $W/q.log | head -20
Q="--mode affine --copies 8 --bits 4 --repeats 10 --group 64"
timeout 150 $T --backend cuda bench qmm $Q --n 12288 --k 4096 --dtype bf16 --rows 2,48,56,64,80,96,128 --kernel qmm-mma-splitk,qmm-tiled > $W/x.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/x.log | cut -c1-100
timeout 100 $T --backend cuda bench qmm $Q --n 4096 --k 4096 --dtype bf16 --rows 2,64,96,128 --kernel qmm-mma-splitk,qmm-tiled,qmm-mma > $W/x4k.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/x4k.log | cut -c1-100
timeout 120 $T --backend cuda bench qmm $Q --n 12288 --k 4096 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256 --kernel auto > $W/auto.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/auto.log | cut -c1-120
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call76.tgz .
