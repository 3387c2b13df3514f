set -u
W=/tmp/w81; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30; gzip $W/diff.log
one() { tag=$1; shift
  timeout 100 $T "$@" --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 256,512 --lq 1,2,3 --kernel auto > $W/s-$tag.log 2>&1
  echo "== $tag rc=$? $(head -1 $W/s-$tag.log | grep -o '[0-9]* GB/s')"
  awk '/^S=/{c=$1" "$2" "$3" "$5" "$6" "$10" r"$11; ok=($0 ~ / ok /)?"ok":"CHECK?"} /graph replay/{print c, "g", $12, ok}' $W/s-$tag.log; }
for rep in 1 2; do one def-$rep; one mma-$rep --jvm=-Dsirocco.attention.vectorMma=true; done
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call81.tgz .
