set -u
W=/tmp/w48; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 200 .gpu/bin/test-gpu --select-class sirocco.runtime.cuda.EarlyStartGpuTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.attention.AttentionGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/diff.log; grep -B2 -A12 "✘" $W/diff.log | head -40; grep -c "EarlyStart" $W/diff.log
timeout 60 $T --jvm -Dsirocco.threadInfo=true --backend cuda bench sdpa --hq 32 --hkv 8 --samples 3 --seq 8192 --head-dim 64 --lq 1 --kernel auto 2>&1 | grep "sirocco launch" | sort | uniq -c | head -5
for r in 1 2; do for e in true false; do
timeout 120 $T --jvm -Dsirocco.attention.earlyCombine=$e --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel auto > $W/auto-$e-$r.log 2>&1; echo "auto $e $r rc=$? $(date -u +%T)"
done; done
for f in $W/auto-*.log; do echo "== $f"; grep -E "^S=|graph replay" $f | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; done
timeout 100 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 8192 --head-dim 64,128,512 --lq 2,3 --kernel auto > $W/auto-lq23.log 2>&1; echo "lq23 rc=$?"
grep -E "^S=|graph replay" $W/auto-lq23.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'
cd $W && gzip diff.log; tar czf $OUT/call48.tgz .
