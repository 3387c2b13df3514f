set -u
W=/tmp/w16; mkdir -p $W
timeout 30 .gpu/bin/tornado --backend cuda bench qmm --rows 1,2,8,16,32 --kernel auto --repeats 10 > $W/auto.log 2>&1; echo "auto rc=$?"
grep -E "^affine|FAIL" $W/auto.log | cut -c1-140
timeout 150 .gpu/bin/test-gpu --select-package sirocco.dispatch.quant > $W/quant.log 2>&1; echo "quant rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/quant.log; grep -B2 -A8 "✘" $W/quant.log | head -30
cd $W && tar czf $OUT/call16.tgz .
