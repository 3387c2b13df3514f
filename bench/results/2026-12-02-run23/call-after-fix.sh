set -u
W=/tmp/w15; mkdir -p $W
timeout 200 .gpu/bin/test-gpu --select-package sirocco.runtime > $W/runtime.log 2>&1; echo "runtime rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/runtime.log; grep -B2 -A8 "✘" $W/runtime.log | head -30; grep -A1 "LaunchHintGpuTest" $W/runtime.log | head -3
cd $W && tar czf $OUT/call15.tgz .
