set -u
W=/tmp/w60; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 240 .gpu/bin/test-gpu --select-class sirocco.jit.GpuDifferentialTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 10"
timeout 200 $T $Q --rows 64,96,128,160,192,256,320,384,512,1024 --kernel qmm-tiled@256x96x3x8x2,qmm-tiled@256x96x3x4x2,qmm-tiled@128x96x3x4x2,qmm-tiled@128x128x4x4x2,qmm-mma > $W/tiled.log 2>&1; echo "tiled rc=$? $(date -u +%T)"
grep -E "g64 +[0-9]+ " $W/tiled.log | cut -c1-75
timeout 60 $T $Q --rows 1 --repeats 40 --kernel auto > $W/qmm1.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm1.log | cut -c1-75
timeout 90 $T $Q --rows 2,4,8,16,32 --kernel auto > $W/qmm.log 2>&1; grep -E "g64 +[0-9]+ " $W/qmm.log | cut -c1-75
timeout 90 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel auto > $W/sdpa.log 2>&1; echo "sdpa rc=$?"
grep -E "^S=|graph replay" $W/sdpa.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep "device copy" $W/sdpa.log
NCU=/usr/local/cuda/bin/ncu
timeout 100 $NCU --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio -k regex:QmmTiled --launch-skip 2 --launch-count 1 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 2 --rows 256 --kernel qmm-tiled@256x96x3x4x2 > $W/ncu-tiled.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
grep -E "Duration|Registers Per|Issued Ipc Active|No Eligible|Executed Instructions  |Achieved Occupancy|Tensor" $W/ncu-tiled.txt | head
grep "stalled_" $W/ncu-tiled.txt | awk '$NF+0 >= 0.1 {print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
cd $W && tar czf $OUT/call60.tgz .
