set -u
W=/tmp/w3; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="$T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --repeats 15"
timeout 150 $Q --rows 1,2,4,8,16 --bits 4 --group 64 --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-async,qmm-mma-async@16x2,qmm-mma-async@16x4,qmm-mma-async@32x3,qmv-splitk,qmv-async > $W/qmm-bf16.log 2>&1; echo "bf16 rc=$? $(date -u +%T)"
timeout 60 $Q --rows 1,8 --bits 4 --group 64 --dtype f16 --kernel qmm-mma-splitk,qmm-mma-async > $W/qmm-f16.log 2>&1; echo "f16 rc=$?"
timeout 60 $Q --rows 1,8 --bits 4 --group 128 --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-async > $W/qmm-g128.log 2>&1; echo "g128 rc=$?"
timeout 60 $Q --rows 1,8 --bits 4 --group 32 --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-async > $W/qmm-g32.log 2>&1; echo "g32 rc=$? $(date -u +%T)"
timeout 90 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight --section Occupancy --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum -k regex:QmmMmaAsync --launch-skip 5 --launch-count 1 $T --backend cuda bench qmm --rows 1 --kernel qmm-mma-async --repeats 2 > $W/ncu-mma-async.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.jit.GpuDifferentialTest --select-class sirocco.runtime.cuda.LargeSharedGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/diff.log; grep -B2 -A10 "✘" $W/diff.log | head -40; grep -E "QmmMmaAsync|largeShared" $W/diff.log | head -8
grep -hE "^affine|FAIL|MISMATCH|rror|read-only" $W/qmm-*.log | cut -c1-150
grep -E "stalled_[a-z_]+_per|inst_executed|Duration|DRAM Through|Registers Per|Achieved Occ|Theoretical Occ|Dynamic Shared" $W/ncu-mma-async.txt
cd $W && gzip diff.log; tar czf $OUT/call3.tgz .
