set -u
W=/tmp/w92; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 100 $T --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$? $(date -u +%T)"; tail -3 $W/demo.log
NCU=/usr/local/cuda/bin/ncu
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 2"
timeout 120 $NCU --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active -k regex:QmmMmaAsync --launch-skip 2 --launch-count 1 $T $Q --rows 2 --kernel qmm-mma-async > $W/ncu-async.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
grep -E "Duration|Registers Per|Dynamic Shared|Issued Ipc|No Eligible|Achieved Occupancy|DRAM Throughput|pipe_[a-z]+.sum|inst_executed.sum|hmma|stalled_[a-z_]+_per_issue_active.ratio +[0-9.]+" $W/ncu-async.txt | awk '{ if ($NF+0 >= 0.1 || $0 !~ /stalled/) print }' | head -40
timeout 420 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A12 "✘" $W/suite.log | head -40
cd $W && gzip suite.log && tar czf $OUT/call92.tgz .
