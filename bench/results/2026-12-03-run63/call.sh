set -u
W=/tmp/w63; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.jit.GpuDifferentialTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 10"
timeout 90 $T $Q --rows 64,128,256,512,1024 --kernel qmm-tiled@128x96x3x4x2,qmm-tiled@128x96x3x4x2x1,qmm-tiled@128x128x4x4x2,qmm-tiled@128x128x4x4x2x1 > $W/tiled.log 2>&1; echo "tiled rc=$? $(date -u +%T)"
grep -E "g64 +[0-9]+ " $W/tiled.log | cut -c1-80
timeout 60 $T $Q --rows 2,4,8,16,32,64,128,256 --kernel auto > $W/qmm.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm.log | cut -c1-80
cd $W && tar czf $OUT/call63.tgz .
