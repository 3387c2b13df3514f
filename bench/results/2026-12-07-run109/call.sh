#!/usr/bin/env bash
# run 109 (session 3 of 2026-12-07), on the word-wise bundle (callB.sh compares it with the base jar): run 108's call 3 (issue #7's rows through the op with FU = 1 the default, FU = 1
# plan variants at 1 and 8 rows), then the SASS, registers and an Nsight profile of qmm-tiled's 256-row plan
# (256x96x3x8x2x1) for the 256-row miss.
set -u
t0=$(date +%s)
o=$OUT/r109; mkdir -p $o
echo "start $(date -u +%T) bundle=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
run() { # tag secs args...
  local tag=$1 t=$2; shift 2
  local a=$(date +%s)
  timeout $t .gpu/bin/tornado --backend cuda "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "read-only|graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
run issue 100 bench qmm $S --rows 1,2,4,6,7,8,16,32,256
run plans 130 bench qmm $S --rows 1,8 --kernel qmm-mma-async,qmm-mma-async@16x3x1x1x0x1x1,qmm-mma-async@32x2x1x1x0x1x1,qmm-mma-async@16x2x1x1x1x1x1,qmm-mma-async@16x2x1x1x0x2x1,qmm-mma-async@16x2x1x1x0x3x1
# SASS of the 256-row plan
SP="--specialize=bits=4,groupSize=64,dtype=0,bm=256,bn=96,mt=3,nt=8,stages=2,xAsync=1"
.gpu/bin/tornado ptx $SP sirocco.kernels.quant.QmmTiledKernel::qmm > $o/tall.ptx 2>$o/ptx.err; sed -i '/^\/\/ resources/d' $o/tall.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90 -v $o/tall.ptx -o $o/tall.cubin > $o/ptxas.txt 2>&1; grep registers $o/ptxas.txt
/usr/local/cuda/bin/cuobjdump -sass $o/tall.cubin > $o/tall.sass 2>&1; echo "sass lines $(wc -l < $o/tall.sass) HMMA $(grep -c HMMA $o/tall.sass) LDSM $(grep -c LDSM $o/tall.sass)"
rm -f $o/tall.cubin
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu=$NCU"
timeout 150 $NCU --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum -k regex:QmmTiled --launch-skip 2 --launch-count 1 .gpu/bin/tornado --backend cuda bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256 --kernel qmm-tiled > $o/ncu-tall.txt 2>&1; echo "ncu rc=$?"
grep -E "Duration|Registers|Issue Slots Busy|No Eligible|stalled_[a-z_]*_per_issue_active.ratio +[a-z]* +[0-9.]*[1-9]|hmma|inst_executed" $o/ncu-tall.txt | head -60
gzip $o/tall.sass $o/tall.ptx; tar -C $OUT -czf $OUT/r109.tgz r109 && rm -rf $o
echo "end A $(( $(date +%s) - t0 )) s"
bash bench/results/2026-12-07-run109/callB.sh
