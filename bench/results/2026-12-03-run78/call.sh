set -u
W=/tmp/w78; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="--mode affine --copies 8 --bits 4 --repeats 10 --group 64 --n 12288 --k 4096"
timeout 120 $T --backend cuda bench qmm $Q --dtype bf16 --rows 1,2,4,6,7,8,16,32,64,256 --kernel auto > $W/auto.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/auto.log | cut -c1-120
timeout 60 $T --backend cuda bench qmm $Q --dtype bf16 --rows 1,1,1 --kernel auto > $W/one.log 2>&1; grep -E "g64 +[0-9]+ " $W/one.log | cut -c1-100
timeout 420 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A8 "✘" $W/suite.log | head -30
gzip $W/suite.log
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call78.tgz .
