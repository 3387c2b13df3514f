#!/usr/bin/env bash
# run 109, call E (bundle of 1f0cea0, qmm-tiled as committed): where qmm-tiled's 256-row plan (256x96x3x8x2x1) stalls,
# instruction by instruction: Nsight's warp-state sections and its per-SASS-instruction stall samples (source page).
set -u
t0=$(date +%s)
o=$OUT/r109e; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
B="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256 --kernel qmm-tiled"
timeout 200 $NCU --clock-control none --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section InstructionStats --section SourceCounters --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active -k regex:QmmTiled --launch-skip 2 --launch-count 1 -o $o/tall .gpu/bin/tornado --backend cuda $B > $o/ncu.log 2>&1; echo "ncu rc=$?"
$NCU --import $o/tall.ncu-rep --print-summary none > $o/ncu-tall.txt 2>&1
grep -E "Duration|Issue Slots Busy|No Eligible|stalled_[a-z_]*_per_issue_active.ratio +[a-z]* +[0-9.]*[1-9]|hmma|inst_executed" $o/ncu-tall.txt | head -40
$NCU --import $o/tall.ncu-rep --page source --csv --print-source sass > $o/tall-source.csv 2>$o/source.err; echo "source rc=$? lines $(wc -l < $o/tall-source.csv)"; head -c 600 $o/tall-source.csv; echo
gzip $o/tall-source.csv $o/ncu-tall.txt; rm -f $o/tall.ncu-rep
tar -C $OUT -czf $OUT/r109e.tgz r109e && rm -rf $o
echo "end $(( $(date +%s) - t0 )) s"
