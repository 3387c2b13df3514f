#!/usr/bin/env bash
# run 102, call 3: the H200's bytes per SM on the H100 (--sms 96: 96 blocks pull the read rate), async variants at 2 rows
set -u
o=$OUT/run102c; mkdir -p $o
B=".gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
V=qmm-mma-async@16x2,qmm-mma-async@16x3,qmm-mma-async@16x4,qmm-mma-async@16x2x1x1x1,qmm-mma-async@16x3x1x1x1,qmm-mma-async@16x4x1x1x1,qmm-mma-splitk@16x1x1
for sms in 132 96 80; do
  timeout 100 $B --rows 2,8 --sms $sms --kernel $V > $o/sms$sms.log 2>&1; echo rc=$? >> $o/sms$sms.log
  echo "== sms $sms"; grep -E "read-only|graph replay|FAILED|ERROR|rc=" $o/sms$sms.log | sed 's/(50 launches per replay)//'
done
