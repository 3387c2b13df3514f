set -u
W=/tmp/w47; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 100 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,16384,24576,32768 --head-dim 64 --lq 1,2,3 --kernel vector > $W/d64.log 2>&1; echo "d64 rc=$? $(date -u +%T)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/diff.log; grep -B2 -A12 "✘" $W/diff.log | head -30; grep "SdpaVectorMma.decode" $W/diff.log | grep -c PASS
grep -E "^S=|graph replay" $W/d64.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'
cd $W && gzip diff.log; tar czf $OUT/call47.tgz .
