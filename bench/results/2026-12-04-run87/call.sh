set -u
W=/tmp/w87; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 10"
timeout 200 $T $Q --rows 1,2,4,6,7,8,16,32,256 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$? $(date -u +%T)"
grep -E "read-only|g64 +[0-9]+ " $W/auto.log | cut -c1-150
timeout 200 $T --backend cuda bench qmm --n 12288 --k 4096 --copies 8 --dtype bf16 --repeats 10 --sweep-formats --kernel auto > $W/formats.log 2>&1; echo "formats rc=$? $(date -u +%T)"
grep -E "read-only| [0-9]+ (qmv|qmm|fp)" $W/formats.log | cut -c1-150
SP="--specialize=bits=4,groupSize=64,dtype=0,warps=4,fb=4"
$T ptx $SP sirocco.kernels.quant.AffineQmvSplitKKernel::qmv > $W/k.ptx 2>$W/ptx.err; sed -i '/^\/\/ resources/d' $W/k.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90 -v $W/k.ptx -o $W/k.cubin > $W/ptxas.txt 2>&1; echo "ptxas rc=$?"; tail -2 $W/ptxas.txt
/usr/local/cuda/bin/cuobjdump -sass $W/k.cubin > $W/k.sass 2>&1; echo "sass lines $(wc -l < $W/k.sass)"
grep -oE "^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z0-9_.]+" $W/k.sass | awk '{print $NF}' | sed -E 's/\..*//' | sort | uniq -c | sort -rn | head -30
NCU=/usr/local/cuda/bin/ncu
timeout 120 $NCU --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section InstructionStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fmaheavy.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum -k regex:AffineQmvSplitK --launch-skip 2 --launch-count 1 $T $Q --rows 1 --kernel qmv-splitk > $W/ncu-qmv.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
grep -E "Duration|Registers|Issued Ipc|No Eligible|Achieved Occupancy|Executed Instructions |pipe_[a-z]+.sum|inst_executed.sum|stalled_[a-z_]+_per_issue_active.ratio +[0-9.]+" $W/ncu-qmv.txt | awk '{ if ($NF+0 >= 0.05 || $0 !~ /stalled/) print }' | head -40
cd $W && tar czf $OUT/call87.tgz .
