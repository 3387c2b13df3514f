set -u
W=/tmp/w53; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 90 .gpu/bin/test-gpu --select-class sirocco.jit.GpuDifferentialTest > $W/jitdiff.log 2>&1; echo "jitdiff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed)" $W/jitdiff.log; grep -A8 "✘" $W/jitdiff.log | head -30
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --bits 4 --group 64 --dtype bf16"
timeout 150 $T $Q --repeats 10 --rows 64,128,256 --kernel qmm-tiled@128x128x4x4,qmm-tiled@128x128x4x4x2,qmm-tiled@256x96x3x8,qmm-tiled@256x96x3x8x2,qmm-tiled@128x192x3x8x2,qmm-tiled@64x128x4x4x2,qmm-mma > $W/tiled.log 2>&1; echo "tiled rc=$? $(date -u +%T)"
grep -E "g64 +(64|128|256) " $W/tiled.log | cut -c1-130
timeout 60 $T $Q --dtype f16 --repeats 10 --rows 256 --kernel qmm-tiled@256x96x3x8x2,qmm-tiled@128x128x4x4x2,qmm-mma > $W/tiled-f16.log 2>&1; echo "tiled f16 rc=$?"; grep -E "g64 +256 " $W/tiled-f16.log | cut -c1-130
for r in 1 2 3; do for e in true false; do
timeout 30 $T --jvm -Dsirocco.qmm.earlyStart=$e $Q --kernel auto --repeats 40 --rows 1 > $W/qmm1-$e-$r.log 2>&1; echo "$e $r rc=$? $(grep -E 'g64 +1 ' $W/qmm1-$e-$r.log | cut -c20-110)"
done; done
for r in 1 2; do for e in true false; do
timeout 40 $T --jvm -Dsirocco.qmm.earlyStart=$e $Q --kernel auto --repeats 15 --rows 16,32,256 > $W/qmm32-$e-$r.log 2>&1; echo "$e $r rc=$?"; grep -E 'g64 +(16|32|256) ' $W/qmm32-$e-$r.log | cut -c20-110
done; done
S="--backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 256,512 --lq 1 --kernel auto"
for r in 1 2; do for e in true default; do
J=""; [ $e = true ] && J="--jvm -Dsirocco.attention.earlyStart=true"
timeout 60 $T $J $S > $W/sdpa-$e-$r.log 2>&1; echo "sdpa $e $r rc=$? $(date -u +%T)"
grep -E "^S=|graph replay" $W/sdpa-$e-$r.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'
done; done
cd $W && tar czf $OUT/call53.tgz .
