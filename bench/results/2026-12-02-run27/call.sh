set -u
W=/tmp/w3; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="$T --backend cuda bench qmm --n 12288 --k 4096 --bits 4 --mode affine --copies 8 --repeats 15"
timeout 60 $Q --rows 1,2,8,16 --group 64 --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x1x2 > $W/qmm-bf16.log 2>&1; echo "bf16 rc=$? $(date -u +%T)"
timeout 60 $Q --rows 1,2,8 --group 64 --dtype f16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x1x2,qmv-splitk,auto > $W/qmm-f16.log 2>&1; echo "f16 rc=$?"
timeout 90 $T --backend cuda bench sdpa --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel vector-ab --samples 20 --max-seconds 1 > $W/sdpa-ab.log 2>&1; echo "sdpa rc=$? $(date -u +%T)"
timeout 60 $T --backend cuda bench sync --iterations 600 > $W/sync.log 2>&1; echo "sync rc=$? $(date -u +%T)"
timeout $((585-SECONDS)) .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/suite.log; grep -B2 -A8 "✘" $W/suite.log | head -40
grep -hE "^affine|FAIL|MISMATCH|rror" $W/qmm-*.log | cut -c1-110
grep -E "^S=|graph replay" $W/sdpa-ab.log | cut -c1-120
grep -E "us:" $W/sync.log
cd $W && gzip suite.log; tar czf $OUT/call3.tgz .
