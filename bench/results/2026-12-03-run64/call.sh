set -u
W=/tmp/w64; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 170 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-package sirocco.dispatch.quant > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 10"
timeout 90 $T $Q --rows 64,128,256,512 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$? $(date -u +%T)"
grep -E "g64 +[0-9]+ " $W/auto.log | cut -c1-90
timeout 90 $T $Q --rows 64,96,192 --kernel qmm-tiled@128x96x3x4x2,qmm-tiled@128x96x3x4x2x1 > $W/xa.log 2>&1; echo "xa rc=$? $(date -u +%T)"
grep -E "g64 +[0-9]+ " $W/xa.log | cut -c1-90
grep -iE "mismatch|error|FAIL" $W/*.log | head
cd $W && tar czf $OUT/call64.tgz .
