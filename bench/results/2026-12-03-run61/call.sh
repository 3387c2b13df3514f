set -u
W=/tmp/w61; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 200 .gpu/bin/test-gpu --select-class sirocco.jit.GpuDifferentialTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-package sirocco.dispatch.quant > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30
B="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64"
timeout 60 $T $B --bits 4 --dtype bf16 --repeats 40 --rows 1 --kernel auto > $W/qmm1.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm1.log | cut -c1-80
timeout 120 $T $B --bits 4 --dtype bf16 --repeats 15 --rows 2,4,6,7,8,16,32,64,128,256,512,1024 --kernel auto > $W/qmm.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm.log | cut -c1-80
timeout 60 $T $B --bits 8 --dtype bf16 --repeats 10 --rows 64,128,256 --kernel auto,qmm-mma > $W/qmm8.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm8.log | cut -c1-80
timeout 60 $T $B --bits 4 --dtype f16 --repeats 10 --rows 64,128,256 --kernel auto,qmm-mma > $W/qmmf16.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmmf16.log | cut -c1-80
timeout 60 .gpu/bin/tornado --backend cuda bench qmm --n 4096 --k 4096 --mode affine --copies 16 --group 64 --bits 4 --dtype bf16 --repeats 10 --rows 64,96,128,256 --kernel auto,qmm-mma > $W/qmm4096.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm4096.log | cut -c1-80
for r in 1 2; do
timeout 60 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel auto > $W/sdpa-$r.log 2>&1; echo "sdpa rc=$?"
grep -E "^S=|graph replay" $W/sdpa-$r.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}' | tr '\n' ';'; echo; grep "device copy" $W/sdpa-$r.log
done
timeout 150 .gpu/bin/test-gpu --select-package sirocco.attention > $W/attn.log 2>&1; echo "attn rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/attn.log; grep -B2 -A8 "✘" $W/attn.log | head -20
cd $W && tar czf $OUT/call61.tgz .
