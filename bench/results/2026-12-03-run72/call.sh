set -u
W=/tmp/w72; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 130 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.dispatch.quant.QmmOpTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -20
Q="--n 12288 --k 4096 --mode affine --copies 8 --group 64 --dtype bf16 --repeats 10"
timeout 50 $T --backend cuda bench qmm $Q --bits 4 --rows 64,256 --kernel auto > $W/b4.log 2>&1; grep -E "g64 +[0-9]+ " $W/b4.log | cut -c1-100
timeout 40 $T --backend cuda bench qmm $Q --bits 8 --rows 256 --kernel auto > $W/b8.log 2>&1; grep -E "g64 +[0-9]+ " $W/b8.log | cut -c1-100
echo "small $(date -u +%T)"
timeout 90 $T --backend cuda bench qmm $Q --bits 4 --rows 8,16 --kernel qmm-mma-splitk,qmm-tiled@8x64x1x1x2,qmm-tiled@8x128x2x1x2,qmm-tiled@16x64x1x2x2,qmm-tiled@16x32x1x2x2,qmm-tiled@16x96x2x2x2,qmm-tiled@16x128x2x2x2 > $W/s16.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/s16.log | cut -c1-110
timeout 90 $T --backend cuda bench qmm $Q --bits 4 --rows 32 --kernel qmm-mma,qmm-tiled@32x64x1x4x2,qmm-tiled@32x128x2x4x2,qmm-tiled@32x96x1x4x2,qmm-tiled@32x64x2x2x2,qmm-tiled@32x32x1x2x2 > $W/s32.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/s32.log | cut -c1-110
echo "sdpa $(date -u +%T)"
for i in 1 2 3 4 5; do
timeout 40 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 8192 --head-dim 512 --lq 1 --kernel auto > $W/sdpa512-$i.log 2>&1
echo "$i $(head -1 $W/sdpa512-$i.log | grep -o '[0-9]* GB/s') $(grep -E '^S=' $W/sdpa512-$i.log | sed -E 's/ +/ /g' | cut -c1-120) graph: $(grep 'graph replay' $W/sdpa512-$i.log | sed -E 's/ +/ /g' | cut -c1-120)"
done
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call72.tgz .
