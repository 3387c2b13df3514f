set -u
W=/tmp/w42; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B="bench sdpa --hq 32 --hkv 8 --samples 20 --lq 1 --kernel vector --seq 1024,8192 --head-dim 64,128"
for sp in 2 4 8 16 24 32 48 96 128; do
timeout 60 $T --jvm -Dsirocco.sdpa.splits=$sp --backend cuda $B > $W/mma-splits-$sp.log 2>&1; echo "splits $sp rc=$? $(date -u +%T)"
done
timeout 60 $T --backend cuda $B > $W/mma-plan.log 2>&1; echo "plan rc=$? $(date -u +%T)"
for f in $W/*.log; do echo "== $f"; grep -E "^S=|graph replay" $f | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep -iE "exception" $f | head -3; done
cd $W && tar czf $OUT/call42.tgz .
