set -u
W=/tmp/w2; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="$T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --repeats 15"
timeout 120 $Q --rows 1 --bits 4 --group 64 --dtype bf16 --kernel qmv-splitk,qmv-async,qmv-async@132x4x3,qmv-async@264x4x3,qmv-async@396x4x3,qmv-async@528x4x3,qmv-async@1056x4x2,qmv-async@792x2x6,qmv-async@1056x2x4 > $W/qmm-b4.log 2>&1; echo "b4 rc=$? $(date -u +%T)"
timeout 60 $Q --rows 1 --bits 8 --group 64 --dtype bf16 --kernel qmv-splitk,qmv-async > $W/qmm-b8.log 2>&1; echo "b8 rc=$?"
timeout 60 $Q --rows 1 --bits 4 --group 64 --dtype f16 --kernel qmv-splitk,qmv-async > $W/qmm-f16.log 2>&1; echo "f16 rc=$?"
timeout 60 $Q --rows 1 --bits 4 --group 128 --dtype bf16 --kernel qmv-splitk,qmv-async > $W/qmm-g128.log 2>&1; echo "g128 rc=$? $(date -u +%T)"
timeout 90 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum -k regex:AffineQmvAsync --launch-skip 5 --launch-count 1 $T --backend cuda bench qmm --rows 1 --kernel qmv-async --repeats 2 > $W/ncu-async.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
timeout 200 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.jit.GpuDifferentialTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30; grep -iE "async" $W/diff.log | head -8
grep -hE "^affine|FAIL|MISMATCH|rror|read-only|floor" $W/qmm-*.log | cut -c1-160
grep -E "stalled_[a-z_]+_per|inst_executed|Duration|DRAM Through|Registers Per|Achieved Occ|Theoretical Occ|Block Limit|Dynamic Shared|Static Shared" $W/ncu-async.txt
cd $W && gzip diff.log; tar czf $OUT/call2.tgz .
