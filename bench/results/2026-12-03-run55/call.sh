set -u
W=/tmp/w55; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 120 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed)" $W/diff.log; grep -A6 "✘" $W/diff.log | head -20
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --repeats 10"
timeout 120 $T $Q --bits 4 --dtype bf16 --rows 192,256,320,384,512 --kernel qmm-tiled@256x96x3x8x2,qmm-tiled@128x128x4x4x2,qmm-mma > $W/tiled.log 2>&1; echo "tiled rc=$? $(date -u +%T)"
grep -E "g64 +[0-9]+ " $W/tiled.log | cut -c1-100
timeout 60 $T $Q --bits 4 --dtype f16 --rows 256 --kernel qmm-tiled@256x96x3x8x2,qmm-tiled@128x128x4x4x2,qmm-mma > $W/tiled-f16.log 2>&1; echo "f16 rc=$?"; grep -E "g64 +256 " $W/tiled-f16.log | cut -c1-100
timeout 60 $T $Q --bits 8 --dtype bf16 --rows 256 --kernel qmm-tiled@256x96x3x8x2,qmm-tiled@128x128x4x4x2,qmm-mma > $W/tiled-8.log 2>&1; echo "8bit rc=$?"; grep -E "g64 +256 " $W/tiled-8.log | cut -c1-100
S="--backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 256,512 --lq 2,3 --kernel auto"
for r in 1 2; do for e in true false; do
timeout 60 $T --jvm -Dsirocco.attention.earlyStart=$e $S > $W/sdpa-$e-$r.log 2>&1; echo "sdpa $e $r rc=$? $(date -u +%T)"
grep -E "^S=|graph replay" $W/sdpa-$e-$r.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'
done; done
timeout 150 .gpu/bin/test-gpu --select-package sirocco.dispatch > $W/dispatch.log 2>&1; echo "dispatch rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/dispatch.log; grep -A6 "✘" $W/dispatch.log | head -20
timeout 60 $T $Q --bits 4 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256 --kernel auto > $W/qmm.log 2>&1; echo "qmm rc=$?"; grep "affine 4-bit" $W/qmm.log | cut -c1-150
timeout 60 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$?"
grep -E "^S=|graph replay" $W/auto.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep "device copy" $W/auto.log
cd $W && tar czf $OUT/call55.tgz .
