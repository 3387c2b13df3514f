set -u
W=/tmp/w66; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 120 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30; grep -c "MmaStaged" $W/diff.log
summ() { grep -E "^S=|graph replay" $1 | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}' | tr '\n' ';'; echo; grep -ciE "mismatch|fail" $1; }
for r in 1 2; do
for cfg in plain staged stagednohint; do
  J=""
  [ $cfg = staged ] && J="--jvm -Dsirocco.attention.mmaStaged=true"
  [ $cfg = stagednohint ] && J="--jvm -Dsirocco.attention.mmaStaged=true --jvm -Dsirocco.occupancyHints=false"
  timeout 90 $T $J --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128 --lq 1,2,3 --kernel auto > $W/$cfg-$r.log 2>&1; echo "$cfg $r rc=$? $(date -u +%T)"
  summ $W/$cfg-$r.log
done
done
cd $W && tar czf $OUT/call66.tgz .
