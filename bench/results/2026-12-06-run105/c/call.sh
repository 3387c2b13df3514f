#!/usr/bin/env bash
# run 105, call 3 (bundle c60cf6127379: mxfp4 on qmm-mma-fp-async up to 32 rows): the op's choice at the
# fp bounds, then the quant op's GPU tests (contract, default policy, differential)
set -u
o=$OUT/r105c; mkdir -p $o
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096"
for m in mxfp4 nvfp4; do
  timeout 40 .gpu/bin/tornado --backend cuda bench qmm $S --mode $m --dtype bf16 --rows 16,17,32,33 --kernel auto > $o/$m.log 2>&1; echo rc=$? >> $o/$m.log
  echo "== $m"; grep -E "graph replay|matched|FAILED|rc=[1-9]" $o/$m.log | sed 's/graph replay (50 launches per replay)://; s/, [0-9]* GB\/s.*//'
done
timeout 200 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
echo "== tests"; grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/tests.log | tail -12; gzip -9 $o/tests.log
tar czf $OUT/r105c.tgz -C $OUT r105c && echo "end $(date -u +%T)"
