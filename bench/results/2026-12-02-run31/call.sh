set -u
W=/tmp/w4; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 60 $T --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$? $(date -u +%T)"; tail -3 $W/demo.log
timeout 40 $T --backend cuda bench sdpa --seq 1024,8192 --head-dim 64,128 --lq 1 --kernel auto --samples 10 --max-seconds 1 > $W/sdpa-auto.log 2>&1; echo "sdpa rc=$?"
grep -E "^S=|graph replay" $W/sdpa-auto.log | cut -c1-130
timeout 430 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A10 "✘" $W/suite.log | head -50
if [ $SECONDS -lt 470 ]; then timeout $((580-SECONDS)) $T --backend cuda exit-variants --repeat 20 --parallel 20 --long-ms 500 --work kernel --timeout-s 60 --json $W/exit.json > $W/exit.log 2>&1; echo "exit rc=$? $(date -u +%T)"; tail -15 $W/exit.log; fi
cd $W && gzip suite.log; tar czf $OUT/call4.tgz .
