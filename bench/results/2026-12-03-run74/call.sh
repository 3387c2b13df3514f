set -u
W=/tmp/w74; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 130 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -20
Q="--n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --repeats 10"
for r in 1 2; do
timeout 120 $T --backend cuda bench qmm $Q --dtype bf16 --rows 8,9,12,16,24,32 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x1x2,qmm-mma > $W/rt-$r.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/rt-$r.log | cut -c1-100
done
timeout 60 $T --backend cuda bench qmm $Q --dtype f16 --rows 16,32 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x1x2,qmm-mma > $W/rt-f16.log 2>&1; grep -E "g64 +[0-9]+ " $W/rt-f16.log | cut -c1-100
timeout 60 $T --backend cuda bench qmm --n 4096 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --repeats 10 --dtype bf16 --rows 16,32 --kernel qmm-mma-splitk,qmm-mma-splitk@16x1x1x2,qmm-mma > $W/rt-4k.log 2>&1; grep -E "g64 +[0-9]+ " $W/rt-4k.log | cut -c1-100
one() { tag=$1; shift
  timeout 40 $T "$@" --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 8192 --head-dim 512 --lq 1 --kernel auto > $W/s-$tag.log 2>&1
  echo "$tag $(head -1 $W/s-$tag.log | grep -o '[0-9]* GB/s') $(grep -E '^S=' $W/s-$tag.log | sed -E 's/ +/ /g' | cut -d' ' -f6-10) g: $(grep 'graph replay' $W/s-$tag.log | grep -o 'p50 [0-9.]*')"; }
for rep in 1 2 3; do one def-$rep; one sp33-$rep --jvm=-Dsirocco.sdpa.splits=33; done
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call74.tgz .
