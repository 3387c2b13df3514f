#!/usr/bin/env bash
# (2026-12-07 session 2: .gpu carries eb0b4b1's 2-bit FU = 1 and 99fe388's 3/5-bit kernels and dispatch jars)
# run 107, call 1 — prepared, NOT RUN: no device machine could be started in the session of 2026-12-07
# (15 attempts). For the next session:
#   new  = the bundle (.gpu), HEAD: the reducer's entry hoisted out of qmm-mma-async's batch loop and copy
#          offsets as immediates (5e1e288), plus FU = 1 plans (fma.bf16x2 unpacking, 40cf8ca and after);
#   base = 07d5816's tornado-kernels jar in bench/results/tmp/base-lib/ (git-ignored; build it with
#          `git worktree add /tmp/base 07d5816 && (cd /tmp/base && mvn -q -o -DskipTests package -pl tornado-kernels -am)`
#          and carry bench/results/tmp). Run: bash bench/results/2026-12-07-run107/a/call.sh
# FU = 0 against FU = 1 in the same bundle (qmm-mma-async@16x2x1x1x0x1xFU), new against base alternating,
# (SHORT=1 BENCH_S=220 END_S=465 for a shorter call), then the shipped-kernel differential suite (its FU = 1 specializations included) and the quant GPU tests.
set -u
t0=$(date +%s)
o=$OUT/r107a; mkdir -p $o
echo "start $(date -u +%T) new=$(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
rm -rf /tmp/g-base && cp -r .gpu /tmp/g-base && cp bench/results/tmp/base-lib/*.jar /tmp/g-base/lib/ && echo 07d5816 > /tmp/g-base/COMMIT
S="--copies 8 --repeats 10 --n 12288 --k 4096"
left() { echo $(( ${BENCH_S:-350} - ($(date +%s) - t0) )); }
run() { # tag bundle secs args...
  local tag=$1 b=$2 t=$3; shift 3
  local l=$(left); [ $l -lt 15 ] && { echo "== $tag skipped (time)"; return; }
  [ $t -gt $l ] && t=$l
  local a=$(date +%s)
  timeout $t $b/bin/tornado --backend cuda bench qmm $S "$@" > $o/$tag.log 2>&1; echo rc=$? >> $o/$tag.log
  echo "== $tag ($(( $(date +%s) - a )) s)"; grep -E "read-only|graph replay|FAILED|ERROR|Exception|rc=[1-9]" $o/$tag.log | sed 's/graph replay (50 launches per replay)://; s/ *affine //; s/, target.*//; s/, [0-9]*% of floor//'
}
A4="--mode affine --bits 4 --group 64 --dtype bf16"
FU="--kernel qmm-mma-async@16x2x1x1x0x1x0,qmm-mma-async@16x2x1x1x0x1x1"
run fu .gpu 50 $A4 --rows 1,2,8 $FU
run base /tmp/g-base 40 $A4 --rows 1,2,8,16 --kernel qmm-mma-async
run new .gpu 40 $A4 --rows 1,2,8,16 --kernel qmm-mma-async
run fu16 .gpu 40 $A4 --rows 16 --kernel qmm-mma-async@16x2x2x1x0x1x0,qmm-mma-async@16x2x2x1x0x1x1
# bf16 2-bit, FU = 0 against 1 (eb0b4b1: fragA2Fma; .gpu's tornado-kernels jar is eb0b4b1's)
run two .gpu 40 --mode affine --bits 2 --group 64 --dtype bf16 --rows 1,8 --kernel qmm-mma-async@16x2x1x1x0x1x0,qmm-mma-async@16x2x1x1x0x1x1
# 3- and 5-bit on qmm-mma-async (99fe388, explicit: the policy keeps them on qmv-rows until timed)
for b in 3 5; do run b$b .gpu 35 --mode affine --bits $b --group 64 --dtype bf16 --rows 1,6,32 --kernel qmm-mma-async,qmv-rows; done
FP="--dtype bf16 --rows 1,8 --kernel qmm-mma-fp-async"
[ -z "${SHORT:-}" ] && run nv-new .gpu 30 --mode nvfp4 $FP
[ -z "${SHORT:-}" ] && run nv-base /tmp/g-base 30 --mode nvfp4 $FP
echo "t $(date -u +%T) tests"
timeout $(( ${END_S:-585} - ($(date +%s) - t0) )) .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QuantOpGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest > $o/tests.log 2>&1; echo rc=$? >> $o/tests.log
echo "== tests"; grep -E "tests (successful|failed|skipped|aborted)|✘|shipped kernels:|rc=" $o/tests.log | tail -14
grep -E "QmmMmaAsyncKernel.qmm\{.*fu=1" $o/tests.log | head -6
gzip -f $o/tests.log; tar -C $OUT -czf $OUT/r107a.tgz r107a
echo "end $(( $(date +%s) - t0 )) s"
