set -u
W=/tmp/w98; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
cp -r .gpu /tmp/gB && cp bench/results/tmp/B/*.jar /tmp/gB/lib/
TB=/tmp/gB/bin/tornado
B="--backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits 4"
run() { name=$1; shift; timeout 150 "$@" > $W/$name.log 2>&1; echo "$name rc=$? $(date -u +%T)"; grep -E "graph replay|ERROR|FAILED" $W/$name.log | sed -E 's/graph replay \(50 launches per replay\): //' | cut -c1-90; }
A3="qmm-mma-async@16x2,qmm-mma-async@16x3,qmm-mma-async@16x4"
run a-bf16 $T $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 1,2,4,8 --kernel $A3,qmv-splitk
run b-bf16 $TB $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 1,2,4,8 --kernel $A3
run a-f16 $T $B --n 12288 --k 4096 --group 64 --dtype f16 --rows 1,2,8 --kernel $A3,qmv-splitk
run a-g128 $T $B --n 12288 --k 4096 --group 128 --dtype bf16 --rows 1,2,8 --kernel qmm-mma-async@16x2,qmm-mma-async@16x3,qmv-splitk
run a-g32 $T $B --n 12288 --k 4096 --group 32 --dtype bf16 --rows 1,2,8 --kernel qmm-mma-async@16x2,qmm-mma-async@16x3,qmv-splitk
run a-n4096 $T $B --n 4096 --k 4096 --group 64 --dtype bf16 --rows 1,2,8 --kernel qmm-mma-async@16x2,qmm-mma-async@16x3,qmv-splitk
run a-auto $T $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 16,32 --kernel auto
SP="--specialize=bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=2"
$TB ptx $SP sirocco.kernels.quant.QmmMmaAsyncKernel::qmm > $W/kb.ptx 2>$W/ptx.err; sed -i '/^\/\/ resources/d' $W/kb.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90 -v $W/kb.ptx -o $W/kb.cubin > $W/ptxas.txt 2>&1; grep registers $W/ptxas.txt
/usr/local/cuda/bin/cuobjdump -sass $W/kb.cubin > $W/kb.sass 2>&1; echo "IMAD.HI $(grep -c 'IMAD.HI' $W/kb.sass) SHF $(grep -c ' SHF' $W/kb.sass) LOP3 $(grep -c LOP3 $W/kb.sass)"
timeout 300 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest > $W/tests.log 2>&1; echo "tests rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/tests.log; grep -B2 -A12 "✘" $W/tests.log | head -30
cd $W && gzip tests.log kb.sass && rm -f kb.cubin && tar czf $OUT/call98.tgz .
