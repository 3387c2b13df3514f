set -u
W=/tmp/w54; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 400 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A14 "✘" $W/suite.log | head -50
grep -E "EarlyStart" $W/suite.log | head -8
timeout 60 $T --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$? $(date -u +%T)"; tail -3 $W/demo.log
cd $W && gzip suite.log; tar czf $OUT/call54.tgz .
