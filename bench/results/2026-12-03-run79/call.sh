set -u
W=/tmp/w79; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="--mode affine --copies 8 --bits 4 --repeats 10 --group 64 --n 4096 --k 4096"
timeout 150 $T --backend cuda bench qmm $Q --dtype f16 --rows 64,128,192,256 --kernel qmm-mma-splitk,qmm-mma > $W/f16.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/f16.log | cut -c1-100
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call79.tgz .
