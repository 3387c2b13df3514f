set -u
W=/tmp/w37; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="$T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --repeats 15"
timeout 150 $Q --rows 1,2,4,8 --bits 4 --group 64 --dtype bf16 --kernel qmv-splitk,qmm-mma-splitk,qmv-mma,qmv-mma@2,qmv-mma@8,qmv-mma@1 > $W/qmm-bf16.log 2>&1; echo "bf16 rc=$? $(date -u +%T)"
timeout 90 $Q --rows 1,2 --bits 4 --group 32 --dtype bf16 --kernel qmv-splitk,qmm-mma-splitk,qmv-mma > $W/qmm-g32.log 2>&1; echo "g32 rc=$?"
timeout 90 $Q --rows 1,2 --bits 4 --group 128 --dtype bf16 --kernel qmv-splitk,qmm-mma-splitk,qmv-mma > $W/qmm-g128.log 2>&1; echo "g128 rc=$?"
timeout 90 $Q --rows 1,2 --bits 4 --group 64 --dtype f16 --kernel qmv-splitk,qmm-mma-splitk,qmv-mma > $W/qmm-f16.log 2>&1; echo "f16 rc=$? $(date -u +%T)"
timeout 90 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight --section Occupancy --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum -k regex:QmvMma --launch-skip 5 --launch-count 1 $T --backend cuda bench qmm --rows 1 --kernel qmv-mma --repeats 2 > $W/ncu-qmv-mma.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped)" $W/diff.log; grep -B2 -A10 "✘" $W/diff.log | head -40; grep -cE "QmvMma.*PASS" $W/diff.log
grep -hE "^affine|FAIL|MISMATCH|rror" $W/qmm-*.log | cut -c1-100
grep -E "stalled_(long|short|mio|wait|barrier|math|not_sel|lg_thr)[a-z_]*_per|inst_executed|bank_conf|Duration|L1/TEX Cache|DRAM Through|Registers Per|Achieved Occ|Theoretical Occ" $W/ncu-*.txt
cd $W && gzip diff.log; tar czf $OUT/call37.tgz .
