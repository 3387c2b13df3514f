set -u
W=/tmp/w41; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B="bench sdpa --hq 32 --hkv 8 --samples 20"
timeout 150 $T --backend cuda $B --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1,2,3 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$? $(date -u +%T)"
timeout 60 $T --backend cuda $B --seq 2048,8192 --head-dim 512 --lq 1 --kernel vector > $W/d512.log 2>&1; echo "d512 rc=$? $(date -u +%T)"
timeout 60 $T --jvm -Dsirocco.attention.vectorStaged=true --backend cuda $B --seq 1024 --head-dim 512 --lq 1 --kernel vector > $W/d512-1024.log 2>&1; echo "d512-1024 rc=$? $(date -u +%T)"
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.attention.AttentionGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/diff.log; grep -B2 -A12 "✘" $W/diff.log | head -40
for f in $W/*.log; do echo "== $f"; grep -E "^S=|graph replay" $f | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s torch=%s graph=", $1,$2,$3,$5,$6,$12; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep -iE "exception" $f | head -3; done
grep -E "device copy" $W/auto.log
cd $W && gzip diff.log; tar czf $OUT/call41.tgz .
