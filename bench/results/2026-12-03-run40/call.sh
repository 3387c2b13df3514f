set -u
W=/tmp/w40; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B="bench sdpa --hq 32 --hkv 8 --samples 20"
timeout 100 $T --jvm -Dsirocco.attention.vectorMma=true --backend cuda $B --seq 8192,12288,16384,24576 --head-dim 64,128 --lq 1 --kernel vector > $W/cross-mma.log 2>&1; echo "cross-mma rc=$? $(date -u +%T)"
timeout 100 $T --backend cuda $B --seq 8192,12288,16384,24576 --head-dim 64,128 --lq 1 --kernel cudnn > $W/cross-cudnn.log 2>&1; echo "cross-cudnn rc=$? $(date -u +%T)"
for sp in 16 24 48 66; do
timeout 60 $T --jvm -Dsirocco.attention.vectorStaged=true --jvm -Dsirocco.sdpa.splits=$sp --backend cuda $B --seq 8192,32768 --head-dim 512 --lq 1 --kernel vector > $W/splits-$sp.log 2>&1; echo "splits $sp rc=$? $(date -u +%T)"
done
for st in true false; do
timeout 100 $T --jvm -Dsirocco.attention.vectorStaged=$st --backend cuda $B --seq 2048,4096,8192,32768 --head-dim 256,512 --lq 1,2,3 --kernel vector > $W/lq-staged-$st.log 2>&1; echo "lq staged=$st rc=$? $(date -u +%T)"
done
for f in $W/*.log; do echo "== $f"; grep -E "^S=|graph replay" $f | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep -iE "error|exception" $f | head -3; done
cd $W && tar czf $OUT/call40.tgz .
