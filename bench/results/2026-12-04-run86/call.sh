set -u
W=/tmp/w86; mkdir -p $W
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 560 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A8 "✘" $W/suite.log | head -30
gzip $W/suite.log
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call86.tgz .
