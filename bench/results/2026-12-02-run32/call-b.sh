set -u
W=/tmp/w6; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="$T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --repeats 15"
timeout 90 $Q --rows 1,2,8,16 --bits 4 --group 64 --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-async > $W/qmm-bf16.log 2>&1; echo "bf16 rc=$? $(date -u +%T)"
timeout 60 $Q --rows 2,8 --bits 4 --group 32 --dtype f16 --kernel qmm-mma-splitk > $W/qmm-f16g32.log 2>&1; echo "f16 rc=$?"
timeout 60 $Q --rows 2,8 --bits 4 --group 128 --dtype bf16 --kernel qmm-mma-splitk > $W/qmm-g128.log 2>&1; echo "g128 rc=$? $(date -u +%T)"
true

grep -hE "^affine|FAIL|MISMATCH|rror|read-only" $W/qmm-*.log | cut -c1-150
cd $W && gzip diff.log; tar czf $OUT/call6.tgz .
