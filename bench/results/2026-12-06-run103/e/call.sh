#!/usr/bin/env bash
# run 103, call 5: g32 with two row tiles in qmm-mma-async (explicit plan) against the op's default at 9-72 rows
set -u
o=$OUT/r103e; mkdir -p $o
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"; nvidia-smi --query-gpu=name --format=csv,noheader
S="--copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 32"
for dt in bf16 f16; do
  rows=9,12,16,24,32,48,72; [ $dt = f16 ] && rows=16,32
  for kn in auto qmm-mma-async@16x2x2; do
  timeout 100 .gpu/bin/tornado --backend cuda bench qmm $S --dtype $dt --rows $rows --kernel $kn > $o/g32-$dt-${kn%@*}.log 2>&1; echo rc=$? >> $o/g32-$dt-${kn%@*}.log
  echo "== $dt $kn"; grep -E "graph replay|max.err|FAIL|ERROR|rc=[1-9]" $o/g32-$dt-${kn%@*}.log | sed 's/graph replay (50 launches per replay)://; s/ *affine 4-bit //; s/, target.*//' | cut -c1-150
  done
done
echo "end $(date -u +%T)"
