set -u
W=/tmp/w14; mkdir -p $W
echo "start $(date -u +%T)"
timeout 60 .gpu/bin/tornado --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$?"
timeout 470 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A10 "✘" $W/suite.log | head -60
tail -5 $W/demo.log
cd $W && gzip -9 suite.log && tar czf $OUT/call14.tgz .
