set -u
W=/tmp/w59; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 240 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 10"
timeout 150 $T $Q --rows 64,128,256,512 --kernel qmm-tiled@256x96x3x8x2,qmm-tiled@256x96x3x4x2,qmm-tiled@128x128x4x4x2,qmm-tiled@128x96x3x4x2,qmm-tiled@128x128x4x4,qmm-mma > $W/tiled.log 2>&1; echo "tiled rc=$? $(date -u +%T)"
grep -E "g64 +[0-9]+ " $W/tiled.log | cut -c1-110
SP="--specialize=bits=4,groupSize=64,dtype=0,bm=256,bn=96,mt=3,nt=8,stages=2"
$T ptx $SP sirocco.kernels.quant.QmmTiledKernel::qmm > $W/k.ptx 2>$W/ptx.err; sed -i '/^\/\/ resources/d' $W/k.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90 -v $W/k.ptx -o $W/k.cubin > $W/ptxas.txt 2>&1; echo "ptxas rc=$?"; cat $W/ptxas.txt | tail -2
/usr/local/cuda/bin/cuobjdump -sass $W/k.cubin > $W/k.sass 2>&1; echo "sass lines $(wc -l < $W/k.sass)"
grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+" $W/k.sass | awk '{print $NF}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -25
NCU=/usr/local/cuda/bin/ncu
timeout 100 $NCU --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio -k regex:QmmTiled --launch-skip 2 --launch-count 1 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 2 --rows 256 --kernel qmm-tiled@256x96x3x8x2 > $W/ncu-tiled.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
grep -E "Duration|Registers Per|Issued Ipc Active|No Eligible|Executed Instructions  " $W/ncu-tiled.txt | head
grep "stalled_" $W/ncu-tiled.txt | awk '$NF+0 >= 0.1 {print $1, $NF}' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
cd $W && tar czf $OUT/call59.tgz .
