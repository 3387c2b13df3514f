set -u
W=/tmp/w96; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 60 $T --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$? $(date -u +%T)"; tail -1 $W/demo.log
timeout 360 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A12 "✘" $W/suite.log | head -40
cd $W && gzip suite.log && tar czf $OUT/call96.tgz .
