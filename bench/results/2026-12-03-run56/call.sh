set -u
W=/tmp/w56; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 130 .gpu/bin/test-gpu --select-package sirocco.dispatch.quant > $W/quant.log 2>&1; echo "quant rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/quant.log; grep -A6 "✘" $W/quant.log | head -20
timeout 150 .gpu/bin/test-gpu --select-package sirocco.attention > $W/attn.log 2>&1; echo "attn rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/attn.log; grep -A6 "✘" $W/attn.log | head -20
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --kernel auto"
for r in 1 2 3; do timeout 30 $T $Q --repeats 40 --rows 1 > $W/qmm1-$r.log 2>&1; echo "r$r rc=$? $(grep -E 'g64 +1 ' $W/qmm1-$r.log | cut -c20-110)"; done
timeout 60 $T $Q --repeats 15 --rows 1,2,4,6,7,8,16,32,192,256,512 > $W/qmm.log 2>&1; echo "qmm rc=$?"; grep "affine 4-bit" $W/qmm.log | cut -c1-150
timeout 40 $T --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$? $(date -u +%T)"; tail -3 $W/demo.log
cd $W && tar czf $OUT/call56.tgz .
