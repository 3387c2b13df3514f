set -u
W=/tmp/w39; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
S="bench sdpa --hq 32 --hkv 8 --samples 20 --lq 1 --kernel vector"
timeout 120 $T --backend cuda $S --seq 1024,8192,32768 --head-dim 128,256,512 > $W/sdpa-vector.log 2>&1; echo "vector rc=$? $(date -u +%T)"
timeout 120 $T --jvm -Dsirocco.attention.vectorStaged=true --backend cuda $S --seq 1024,8192,32768 --head-dim 128,256,512 > $W/sdpa-staged.log 2>&1; echo "staged rc=$? $(date -u +%T)"
M="bench sdpa --hq 32 --hkv 8 --samples 20 --kernel vector --seq 1024,8192,32768 --head-dim 128 --lq 1,2,3"
timeout 120 $T --jvm -Dsirocco.attention.vectorMma=true --backend cuda $M > $W/sdpa-mma-hint.log 2>&1; echo "mma-hint rc=$? $(date -u +%T)"
timeout 120 $T --jvm -Dsirocco.attention.vectorMma=true --jvm -Dsirocco.occupancyHints=false --backend cuda $M > $W/sdpa-mma-nohint.log 2>&1; echo "mma-nohint rc=$? $(date -u +%T)"
timeout 90 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight --section Occupancy --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum -k regex:decode --launch-skip 3 --launch-count 1 $T --jvm -Dsirocco.attention.vectorStaged=true --backend cuda bench sdpa --hq 32 --hkv 8 --seq 32768 --head-dim 512 --lq 1 --kernel vector --samples 3 > $W/ncu-staged.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
timeout 200 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/diff.log; grep -B2 -A10 "✘" $W/diff.log | head -30; grep -E "SdpaVectorStaged" $W/diff.log | head -8
for f in $W/sdpa-*.log; do echo "== $f"; grep -vE '^\s*$' $f | tail -14 | cut -c1-170; done
grep -E "stalled_(long|short|mio|wait|barrier|math|not_sel|lg_thr)[a-z_]*_per|inst_executed|Duration|DRAM Through|Registers Per|Achieved Occ|Theoretical Occ|Local|Dynamic Shared" $W/ncu-*.txt
cd $W && gzip diff.log; tar czf $OUT/call39.tgz .
