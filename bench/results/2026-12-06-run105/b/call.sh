#!/usr/bin/env bash
# run 105, call 2 (bundle 789db8a37976, "new": bf16 E2M1 pairs placed by one multiply; "base": 4c6ce96's
# tornado-kernels jar, the same bundle otherwise): new against base alternating, every format at rows
# 1 and 6 through the op, fp f16 at 1 row against fp-qmv, 24/32 rows, then the whole GPU suite
set -u
t0=$(date +%s)
o=$OUT/r105b; mkdir -p $o
echo "start $(date -u +%T) new=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
rm -rf /tmp/gb && cp -r .gpu /tmp/gb && cp bench/results/tmp/base-lib/*.jar /tmp/gb/lib/ && echo 4c6ce96 > /tmp/gb/COMMIT
S="--copies 8 --repeats 10 --n 12288 --k 4096"
left() { echo $(( 330 - ($(date +%s) - t0) )); }
run() { # tag bundle secs args...
  local tag=$1 b=$2 t=$3; shift 3
  local l=$(left); [ $l -lt 15 ] && { echo "== $tag skipped (time)"; return; }
  [ $t -gt $l ] && t=$l
  local a=$(date +%s)
  timeout $t $b/bin/tornado --backend cuda bench qmm $S "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
AB="--rows 1,8,16 --kernel qmm-mma-fp-async,qmm-mma"
run mx-new .gpu 30 --mode mxfp4 --dtype bf16 $AB
run mx-base /tmp/gb 30 --mode mxfp4 --dtype bf16 $AB
run nv-new .gpu 30 --mode nvfp4 --dtype bf16 $AB
run nv-base /tmp/gb 30 --mode nvfp4 --dtype bf16 $AB
run mx-new2 .gpu 30 --mode mxfp4 --dtype bf16 $AB
run mx-base2 /tmp/gb 30 --mode mxfp4 --dtype bf16 $AB
run formats .gpu 60 --sweep-formats --rows 1,6 --kernel auto
run f16 .gpu 40 --mode mxfp4 --dtype f16 --rows 1 --kernel qmm-mma-fp-async,fp-qmv
run nv16 .gpu 30 --mode nvfp4 --dtype f16 --rows 1 --kernel qmm-mma-fp-async,fp-qmv
run mx8h .gpu 30 --mode mxfp8 --dtype f16 --rows 1,16 --kernel qmm-mma-fp-async,fp-qmv,qmm-mma
run wide .gpu 40 --mode mxfp4 --dtype bf16 --rows 24,32 --kernel qmm-mma-fp-async,qmm-mma
run wide8 .gpu 40 --mode mxfp8 --dtype bf16 --rows 24,32 --kernel qmm-mma-fp-async,qmm-mma
echo "t $(date -u +%T) the whole GPU suite"
timeout $(( 585 - ($(date +%s) - t0) )) .gpu/bin/test-gpu > $o/suite.log 2>&1; echo rc=$? >> $o/suite.log
grep -E "tests (successful|failed|skipped|aborted)|✘|rc=" $o/suite.log | tail -20; gzip -9 $o/suite.log
tar czf $OUT/r105b.tgz -C $OUT r105b && echo "end $(date -u +%T)"
