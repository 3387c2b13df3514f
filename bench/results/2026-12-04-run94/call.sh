set -u
W=/tmp/w94; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B="--backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits 4"
run() { name=$1; shift; timeout 150 $T "$@" > $W/$name.log 2>&1; echo "$name rc=$? $(date -u +%T)"; grep -E "graph replay|ERROR|FAILED" $W/$name.log | sed -E 's/graph replay \(50 launches per replay\): //' | cut -c1-100; }
run auto $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 1,2,4,6,7,8,16,32,256 --kernel auto
run ab-bf16 $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 2,8 --kernel qmm-mma-async,qmm-mma-splitk
run ab-f16 $B --n 12288 --k 4096 --group 64 --dtype f16 --rows 2,8,16 --kernel qmm-mma-async,qmm-mma-splitk
run ab-g128 $B --n 12288 --k 4096 --group 128 --dtype bf16 --rows 2,8,16 --kernel qmm-mma-async,qmm-mma-splitk
run ab-g32 $B --n 12288 --k 4096 --group 32 --dtype bf16 --rows 2,8 --kernel qmm-mma-async,qmm-mma-splitk
SP="--specialize=bits=4,groupSize=64,dtype=0,ks=16,wps=8,stages=3"
$T ptx $SP sirocco.kernels.quant.QmmMmaAsyncKernel::qmm > $W/k.ptx 2>$W/ptx.err; sed -i '/^\/\/ resources/d' $W/k.ptx
/usr/local/cuda/bin/ptxas -arch=sm_90 -v $W/k.ptx -o $W/k.cubin > $W/ptxas.txt 2>&1; tail -2 $W/ptxas.txt | head -1
/usr/local/cuda/bin/cuobjdump -sass $W/k.cubin > $W/k.sass 2>&1; echo "LOP3 $(grep -c 'LOP3' $W/k.sass) SHF $(grep -c ' SHF' $W/k.sass)"
timeout 400 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A12 "✘" $W/suite.log | head -40
cd $W && gzip suite.log && rm -f k.cubin && gzip k.sass && tar czf $OUT/call94.tgz .
