set -u
W=/tmp/w69; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 100 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -20
timeout 60 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 8 --dtype bf16 --repeats 10 --rows 192,256 --kernel auto,qmm-tiled@128x96x3x4x2 > $W/b8.log 2>&1; grep -E "g64 +[0-9]+ " $W/b8.log | cut -c1-100
timeout 40 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 10 --rows 64,256 --kernel auto > $W/b4.log 2>&1; grep -E "g64 +[0-9]+ " $W/b4.log | cut -c1-100
summ() { grep -E "^S=|graph replay" $1 | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}' | tr '\n' ';'; echo; }
timeout 80 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel auto --copies 1 > $W/sdpa-l2.log 2>&1; echo "sdpa l2 rc=$?"; summ $W/sdpa-l2.log
timeout 80 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel auto > $W/sdpa-rot.log 2>&1; echo "sdpa rot rc=$?"; summ $W/sdpa-rot.log
grep -c "ok (" $W/sdpa-l2.log $W/sdpa-rot.log
cd $W && tar czf $OUT/call69.tgz .
