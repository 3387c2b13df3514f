#!/usr/bin/env bash
# run 101, second call (same warm H100): auto at 20-32 rows twice, the explicit two-tile plan against split-K, the whole GPU suite
o=$OUT/run101b; mkdir -p $o; B=".gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
for i in 1 2; do timeout 60 $B --rows 20,24,28,32 --kernel auto >> $o/auto24.log 2>&1; done
timeout 60 $B --rows 20,24,28 --kernel qmm-mma-async@16x2x2,qmm-mma-splitk >> $o/expl24.log 2>&1
grep "graph replay" $o/auto24.log $o/expl24.log
timeout 420 .gpu/bin/test-gpu > $o/test-gpu-all.log 2>&1; echo rc=$? >> $o/test-gpu-all.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/test-gpu-all.log | tail -30; gzip -9 $o/test-gpu-all.log
