set -u
W=/tmp/w2; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="$T --backend cuda bench qmm --n 12288 --k 4096 --bits 4 --mode affine --copies 8 --repeats 15"
timeout 100 $Q --rows 1,2,4,8,16,32 --group 64 --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x2,qmv-splitk,qmm-mma > $W/qmm-bf16.log 2>&1; echo "bf16 rc=$? $(date -u +%T)"
timeout 70 $Q --rows 1,2,8,16 --group 64 --dtype f16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x2,qmm-mma > $W/qmm-f16.log 2>&1; echo "f16 rc=$? $(date -u +%T)"
timeout 60 $Q --rows 2,8 --group 128 --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x2 > $W/qmm-g128.log 2>&1; echo "g128 rc=$?"
timeout 60 $Q --rows 2,8 --group 32 --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x2 > $W/qmm-g32.log 2>&1; echo "g32 rc=$? $(date -u +%T)"
timeout 60 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight --section Occupancy --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum -k regex:QmmMmaSplitK --launch-skip 5 --launch-count 1 $T --backend cuda bench qmm --rows 1 --kernel qmm-mma-splitk@16x1x2 --repeats 2 > $W/ncu-bps2.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
timeout 90 $T --backend cuda bench sdpa --seq 8192 --head-dim 64,128 --lq 1 --kernel all --samples 30 --max-seconds 2 > $W/sdpa.log 2>&1; echo "sdpa rc=$? $(date -u +%T)"
timeout 60 $T --jvm -Dsirocco.cudnn.autotune=8 --backend cuda bench sdpa --seq 1024,8192 --head-dim 64,128 --lq 1 --kernel cudnn --samples 30 --max-seconds 2 > $W/sdpa-tuned.log 2>&1; echo "tuned rc=$? $(date -u +%T)"
for P in 0 200 500 1000; do timeout $((580-SECONDS)) $T --jvm -Dsirocco.wait.handoffParkMicros=$P --backend cuda bench sync --kernel-us 0,1000,5000 --iterations 800 --concurrency 1 > $W/sync-park$P.log 2>&1; echo "sync $P rc=$? $(date -u +%T)"; done
grep -E "^affine|FAIL|MISMATCH|rror" $W/qmm-*.log | cut -c1-150
grep -E "stalled_(barrier|long|wait|math|not_sel)|inst_executed|Duration|DRAM Through|Registers|Achieved Occ" $W/ncu-bps2.txt
grep -E "^S=|graph replay|plan" $W/sdpa.log $W/sdpa-tuned.log | cut -c1-230
for P in 0 200 500 1000; do echo "== park $P"; grep -E "us:|coop|blocking" $W/sync-park$P.log; done
cd $W && tar czf $OUT/call2.tgz .
