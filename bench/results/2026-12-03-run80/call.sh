set -u
W=/tmp/w80; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.dispatch.quant.QmmOpTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -20; gzip $W/diff.log
timeout 60 $T --backend cuda bench qmm --mode affine --copies 8 --bits 4 --repeats 10 --group 64 --n 12288 --k 4096 --dtype bf16 --rows 8,16,32,64 --kernel auto > $W/auto.log 2>&1; echo "rc=$?"; grep -E "g64 +[0-9]+ " $W/auto.log | cut -c1-100
cd $W && tar czf $OUT/call80.tgz .
