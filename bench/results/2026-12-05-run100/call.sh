#!/usr/bin/env bash
# run 100: the op's choice at issue #7's rows, the candidate plans (few/many rows, n sweep), fp modes at 2-8 rows, op GPU tests
set -u
o=$OUT/run100; mkdir -p $o
nvidia-smi > $o/nvidia-smi.txt 2>&1
B=".gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096"
A="--mode affine --bits 4 --group 64 --dtype bf16"
echo "== auto"; timeout 120 $B $A --rows 1,2,4,6,7,8,16,32,256 --kernel auto --json $o/auto.json > $o/auto.log 2>&1; echo rc=$? >> $o/auto.log
grep -E "graph replay|rows|FAILED" $o/auto.log | head -40
echo "== candidates + tests"
OUT=$o QMM_PHASES="candidates tests" QMM_BUDGET_S=330 QMM_CANDIDATES_S=230 QMM_TESTS_S=100 bash bench/gpu-qmm.sh > $o/gpu-qmm.out 2>&1
tail -60 $o/gpu-qmm.out
echo "== fp modes"
for m in mxfp4 nvfp4 mxfp8; do timeout 40 $B --mode $m --dtype f16 --rows 2,3,4,6,8 --kernel qmm-mma,fp-qmv >> $o/fp.log 2>&1; echo "rc=$? $m" >> $o/fp.log; done
grep -E "graph replay|rc=" $o/fp.log
tar czf $OUT/run100.tgz -C $OUT run100
