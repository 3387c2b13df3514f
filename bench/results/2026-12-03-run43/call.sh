set -u
W=/tmp/w43; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B="bench sdpa --hq 32 --hkv 8 --samples 20 --kernel vector --head-dim 64"
timeout 90 $T --backend cuda $B --seq 1024,8192,16384,24576,32768 --lq 1,2,3 > $W/mma64.log 2>&1; echo "mma64 rc=$? $(date -u +%T)"
for sp in 16 32; do
timeout 60 $T --jvm -Dsirocco.sdpa.splits=$sp --backend cuda $B --seq 8192,32768 --lq 1 > $W/mma64-splits-$sp.log 2>&1; echo "splits $sp rc=$? $(date -u +%T)"
done
timeout 200 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/diff.log; grep -B2 -A12 "✘" $W/diff.log | head -30
for f in $W/*.log; do echo "== $f"; grep -E "^S=|graph replay" $f | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep -iE "exception" $f | head -3; done
cd $W && gzip diff.log; tar czf $OUT/call43.tgz .
