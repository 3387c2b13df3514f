set -u
W=/tmp/w1; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 60 $T --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$? $(date -u +%T)"
timeout 60 $T --backend cuda bench qmm --rows 1,2,8,16 --kernel auto --dtype bf16 --repeats 10 > $W/auto-bf16.log 2>&1; echo "auto bf16 rc=$?"
timeout 60 $T --backend cuda bench qmm --rows 1,2,8,16 --kernel auto --dtype f16 --repeats 10 > $W/auto-f16.log 2>&1; echo "auto f16 rc=$?"
NCU=/usr/local/cuda/bin/ncu
timeout 100 $NCU --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum -k regex:QmmMmaSplitK --launch-skip 5 --launch-count 1 $T --backend cuda bench qmm --rows 1 --kernel qmm-mma-splitk --repeats 2 > $W/ncu-splitk1.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
for P in 0 200; do timeout 50 $T --jvm -Dsirocco.wait.handoffParkMicros=$P --backend cuda bench sync --kernel-us 1000,5000 --iterations 400 --concurrency 1 > $W/sync-park$P.log 2>&1; echo "sync park=$P rc=$? $(date -u +%T)"; done
timeout $((585-SECONDS)) .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A10 "✘" $W/suite.log | head -60
tail -5 $W/demo.log
grep -E "^affine|FAIL|MISMATCH" $W/auto-bf16.log $W/auto-f16.log | cut -c1-160
grep -E "stalled|inst_executed|Duration|DRAM Through|Registers|Issued Warp" $W/ncu-splitk1.txt | head -40
for P in 0 200; do echo "== park $P"; grep -vE "^\s*$" $W/sync-park$P.log | head -30; done
cd $W && gzip -k suite.log && rm suite.log && tar czf $OUT/call1.tgz .
