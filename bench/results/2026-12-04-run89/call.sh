set -u
W=/tmp/w89; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
B="--backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits 4"
AS="qmm-mma-async,qmm-mma-splitk"
run() { name=$1; shift; timeout 150 $T "$@" > $W/$name.log 2>&1; echo "$name rc=$? $(date -u +%T)"; grep -E "graph replay" $W/$name.log | sed -E 's/graph replay \(50 launches per replay\): //' | cut -c1-95; }
run bf16g64 $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 1,2,3,4,6,8,12,16 --kernel $AS
run bf16g64-1 $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 1 --kernel qmv-splitk
run noearly --jvm=-Dsirocco.qmm.earlyStart=false $B --n 12288 --k 4096 --group 64 --dtype bf16 --rows 1,2,8 --kernel $AS
run f16g64 $B --n 12288 --k 4096 --group 64 --dtype f16 --rows 1,2,8,16 --kernel $AS,qmv-splitk
run bf16g32 $B --n 12288 --k 4096 --group 32 --dtype bf16 --rows 1,2,8,16 --kernel $AS
run bf16g128 $B --n 12288 --k 4096 --group 128 --dtype bf16 --rows 1,2,8,16 --kernel $AS
run n4096 $B --n 4096 --k 4096 --group 64 --dtype bf16 --rows 1,2,8,16 --kernel $AS,qmv-splitk
run n14336 $B --n 14336 --k 4096 --group 64 --dtype bf16 --rows 1,2,8,16 --kernel $AS,qmv-splitk
run k2048 $B --n 12288 --k 2048 --group 64 --dtype bf16 --rows 1,2,8 --kernel $AS,qmv-splitk
for b in 2 3 5 6; do run w$b-f16 --backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits $b --n 12288 --k 4096 --group 64 --dtype f16 --rows 1 --kernel qmv-rows,qmv; done
run w3-g128 --backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits 3 --n 12288 --k 4096 --group 128 --dtype bf16 --rows 1 --kernel qmv-rows,qmv
run w3-g32 --backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits 3 --n 12288 --k 4096 --group 32 --dtype bf16 --rows 1 --kernel qmv-rows,qmv
run w3-n4096 --backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits 3 --n 4096 --k 4096 --group 64 --dtype bf16 --rows 1 --kernel qmv-rows,qmv
for b in 2 4 8; do run w$b-f32 --backend cuda bench qmm --copies 8 --repeats 10 --mode affine --bits $b --n 12288 --k 4096 --group 64 --dtype f32 --rows 1 --kernel qmv-rows,qmv; done
for m in mxfp4 nvfp4 mxfp8; do run $m-f16 --backend cuda bench qmm --copies 8 --repeats 10 --mode $m --n 12288 --k 4096 --dtype f16 --rows 2 --kernel qmm-mma,fp-qmv; done
grep -hE "FAILED|ERROR" $W/*.log | head
cd $W && tar czf $OUT/call89.tgz .
