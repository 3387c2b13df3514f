set -u
W=/tmp/w91; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --repeats 10"
run() { name=$1; shift; timeout 150 $T "$@" > $W/$name.log 2>&1; echo "$name rc=$? $(date -u +%T)"; grep -E "graph replay|ERROR|not run" $W/$name.log | sed -E 's/graph replay \(50 launches per replay\): //' | cut -c1-100; }
run tune $Q --dtype bf16 --rows 1,2,8 --kernel qmm-mma-async@16x2,qmm-mma-async@16x3,qmm-mma-async@16x4,qmm-mma-async@32x2,qmm-mma-async@32x3,qmm-mma-async@32x4
run tune-f16 $Q --dtype f16 --rows 2,8 --kernel qmm-mma-async@16x2,qmm-mma-async@16x3,qmm-mma-async@16x4,qmm-mma-async@32x3
cd $W && tar czf $OUT/call91.tgz .
