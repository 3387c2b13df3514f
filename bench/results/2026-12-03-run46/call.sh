set -u
W=/tmp/w46; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 150 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1,2,3 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$? $(date -u +%T)"
timeout 200 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.attention.AttentionGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/diff.log; grep -B2 -A12 "✘" $W/diff.log | head -30; grep "SdpaSplitK.combine" $W/diff.log | grep -c PASS
grep -E "^S=|graph replay" $W/auto.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep -E "device copy" $W/auto.log
cd $W && gzip diff.log; tar czf $OUT/call46.tgz .
