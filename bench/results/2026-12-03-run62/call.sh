set -u
W=/tmp/w62; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64"
for r in 1 2; do timeout 40 $T $B --bits 4 --dtype bf16 --repeats 40 --rows 1 --kernel auto > $W/qmm1-$r.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm1-$r.log | cut -c1-80; done
timeout 60 $T $B --bits 8 --dtype bf16 --repeats 10 --rows 64,128,256 --kernel qmm-tiled,qmm-mma > $W/qmm8.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm8.log | cut -c1-80
timeout 60 $T $B --bits 4 --dtype f16 --repeats 10 --rows 64,128,256 --kernel qmm-tiled,qmm-mma > $W/qmmf16.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmmf16.log | cut -c1-80
timeout 60 $T --backend cuda bench qmm --n 4096 --k 4096 --mode affine --copies 16 --group 64 --bits 4 --dtype bf16 --repeats 10 --rows 64,96,128,256 --kernel qmm-tiled,qmm-mma > $W/qmm4096.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm4096.log | cut -c1-80
cd $W && tar czf $OUT/call62.tgz .
# Second command of run 62, sent right after on the warm machine (logs qmm4096-large.log, qmm8-160-192.log):
# T=.gpu/bin/tornado; timeout 60 $T --backend cuda bench qmm --n 4096 --k 4096 --mode affine --copies 16 --group 64 --bits 4 --dtype bf16 --repeats 10 --rows 384,512,1024 --kernel qmm-tiled,qmm-mma
# timeout 60 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 8 --dtype bf16 --repeats 10 --rows 160,192 --kernel qmm-tiled,qmm-mma
