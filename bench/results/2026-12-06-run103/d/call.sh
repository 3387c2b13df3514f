#!/usr/bin/env bash
# run 103, call 4: the sampled StreamCreationGpuTest (three times) and CudaWaitGpuTest (SingleCarrierMain parks now)
set -u
o=$OUT/r103d; mkdir -p $o
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name --format=csv,noheader
for i in 1 2 3; do
  sel="--select-class sirocco.runtime.cuda.StreamCreationGpuTest"; [ $i = 1 ] && sel="$sel --select-class sirocco.runtime.cuda.CudaWaitGpuTest"
  timeout 150 .gpu/bin/test-gpu $sel > $o/t$i.log 2>&1; echo rc=$? >> $o/t$i.log
  echo "== $i $(date -u +%T)"; grep -E "stream creation beside|tests (successful|failed|skipped|aborted)|✘|rc=" $o/t$i.log | tail -8
done
echo "end $(date -u +%T)"
