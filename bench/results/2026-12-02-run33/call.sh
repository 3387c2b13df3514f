set -u
W=/tmp/w7; mkdir -p $W
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 440 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A10 "✘" $W/suite.log | head -50
cd $W && gzip suite.log; tar czf $OUT/call7.tgz .
