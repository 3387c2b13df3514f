set -u
W=/tmp/w1; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 200 .gpu/bin/test-gpu --select-package sirocco.runtime > $W/runtime.log 2>&1; echo "runtime rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/runtime.log; grep -B2 -A8 "✘" $W/runtime.log | head -30
timeout 130 $T --backend cuda exit-variants --repeat 40 --parallel 20 --long-ms 500 --work kernel --timeout-s 60 --json $W/exit.json > $W/exit.log 2>&1; echo "exit rc=$? $(date -u +%T)"
tail -16 $W/exit.log
timeout $((570-SECONDS)) $T --backend cuda bench sdpa --seq 256,512,1024,2048,3072,4096,6144 --head-dim 64,128 --lq 1 --kernel all --samples 20 --max-seconds 1 > $W/sdpa.log 2>&1; echo "sdpa rc=$? $(date -u +%T)"
grep -E "^S=|graph replay" $W/sdpa.log | cut -c1-200
cd $W && gzip runtime.log; tar czf $OUT/call1.tgz .
