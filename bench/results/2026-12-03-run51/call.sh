set -u
W=/tmp/w51; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 360 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A14 "✘" $W/suite.log | head -50
timeout 60 $T --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$? $(date -u +%T)"; tail -6 $W/demo.log
timeout 100 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --repeats 15 --rows 1,2,4,6,7,8,16,32,256 --bits 4 --group 64 --dtype bf16 --kernel auto > $W/qmm.log 2>&1; echo "qmm rc=$?"; grep "affine 4-bit" $W/qmm.log | cut -c1-150
timeout 60 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$?"
grep -E "^S=|graph replay" $W/auto.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep "device copy" $W/auto.log
cd $W && gzip suite.log; tar czf $OUT/call51.tgz .
