set -u
W=/tmp/w38; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
S="bench sdpa --hq 32 --hkv 8 --samples 20"
timeout 150 $T --backend cuda $S --seq 1024,8192,32768 --head-dim 64,128 --lq 1 --kernel vector > $W/sdpa-vector.log 2>&1; echo "vector rc=$? $(date -u +%T)"
timeout 150 $T --jvm -Dsirocco.attention.vectorMma=true --backend cuda $S --seq 1024,8192,32768 --head-dim 64,128 --lq 1,2,3 --kernel vector > $W/sdpa-mma.log 2>&1; echo "mma rc=$? $(date -u +%T)"
timeout 90 $T --backend cuda $S --seq 8192,32768 --head-dim 64,128 --lq 1 --kernel cudnn > $W/sdpa-cudnn.log 2>&1; echo "cudnn rc=$? $(date -u +%T)"
timeout 90 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight --section Occupancy --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum -k regex:SdpaVectorMma --launch-skip 3 --launch-count 1 $T --jvm -Dsirocco.attention.vectorMma=true --backend cuda bench sdpa --hq 32 --hkv 8 --seq 32768 --head-dim 128 --lq 1 --kernel vector --samples 3 > $W/ncu-mma.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/diff.log; grep -B2 -A10 "✘" $W/diff.log | head -30; grep -E "SdpaVectorMma" $W/diff.log | grep -c PASS
for f in $W/sdpa-*.log; do echo "== $f"; grep -vE '^\s*$' $f | tail -22 | cut -c1-160; done
grep -E "stalled_(long|short|mio|wait|barrier|math|not_sel|lg_thr)[a-z_]*_per|inst_executed|Duration|DRAM Through|Registers Per|Achieved Occ|Theoretical Occ|Local" $W/ncu-*.txt
cd $W && gzip diff.log; tar czf $OUT/call38.tgz .
