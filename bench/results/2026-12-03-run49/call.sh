set -u
W=/tmp/w49; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 200 .gpu/bin/test-gpu --select-class sirocco.runtime.cuda.EarlyStartGpuTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.attention.AttentionGpuTest --select-class sirocco.attention.AttentionMlxGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/diff.log; grep -B2 -A12 "✘" $W/diff.log | head -40
timeout 60 $T --jvm -Dsirocco.threadInfo=true --backend cuda bench sdpa --hq 32 --hkv 8 --samples 3 --seq 8192 --head-dim 64,512 --lq 1 --kernel auto 2>&1 | grep "sirocco launch Sdpa" | sort | uniq -c | head -8
for r in 1 2 3; do for e in true false; do
timeout 120 $T --jvm -Dsirocco.attention.earlyStart=$e --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1,2,3 --kernel auto > $W/auto-$e-$r.log 2>&1; echo "auto $e $r rc=$? $(date -u +%T)"
done; done
for f in $W/auto-*.log; do echo "== $f"; grep -E "^S=|graph replay" $f | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; done > $W/summary.txt
cat $W/summary.txt | awk '/^==/{f=$2; next} {k=$1" "$2" "$3; split($NF,a,"="); v[k]=v[k]" "a[2]; s[k]=s[k]" "substr($5,8)} END{for(k in v) print k, "graph:", v[k], " stream:", s[k]}' | sort -t= -k2 -n | sort
cd $W && gzip diff.log; tar czf $OUT/call49.tgz .
