set -u
W=/tmp/w50; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.runtime.cuda.EarlyStartGpuTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.attention.AttentionGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/diff.log; grep -B2 -A12 "✘" $W/diff.log | head -40
S() { grep -E "^S=|graph replay" $1 | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; }
for r in 1 2; do
timeout 100 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1,2,3 --kernel auto > $W/auto-$r.log 2>&1; echo "auto $r rc=$? $(date -u +%T)"
done
paste <(S $W/auto-1.log) <(S $W/auto-2.log | awk '{print $NF}')
for sp in 16 32 48 64 96 128; do timeout 40 $T --jvm -Dsirocco.sdpa.splits=$sp --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 8192 --head-dim 64 --lq 1 --kernel auto > $W/d64-s$sp.log 2>&1; echo "d64 splits=$sp $(S $W/d64-s$sp.log)"; done
for sp in 16 24 32 48 64; do timeout 40 $T --jvm -Dsirocco.sdpa.splits=$sp --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 8192 --head-dim 512 --lq 1 --kernel auto > $W/d512-s$sp.log 2>&1; echo "d512 splits=$sp $(S $W/d512-s$sp.log)"; done
grep "device copy" $W/auto-1.log
Q="$T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --repeats 15 --rows 1,2,4,8 --bits 4 --group 64 --dtype bf16 --kernel auto"
for r in 1 2; do for e in true false; do
timeout 60 .gpu/bin/tornado --jvm -Dsirocco.qmm.earlyStart=$e ${Q#.gpu/bin/tornado } > $W/qmm-$e-$r.log 2>&1; echo "qmm $e $r rc=$?"; cut -c1-150 $W/qmm-$e-$r.log | head -9
done; done
cd $W && gzip diff.log; tar czf $OUT/call50.tgz .
