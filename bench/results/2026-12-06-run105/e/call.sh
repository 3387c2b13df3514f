#!/usr/bin/env bash
# run 105, call 5 (H200, warm, bundle c60cf61), inline command:
S="--copies 8 --repeats 10 --n 12288 --k 4096"; B=".gpu/bin/tornado --backend cuda bench qmm $S"
$B --mode affine --bits 4 --group 64 --dtype bf16 --rows 1,6,7,8 --kernel auto > rows2.log
$B --mode affine --bits 4 --group 64 --dtype f16 --rows 1,8 --kernel auto > f16.log
$B --mode affine --bits 4 --group 128 --dtype bf16 --rows 1,8 --kernel auto > g128.log
$B --mode affine --bits 4 --group 32 --dtype bf16 --rows 1,8 --kernel auto > g32.log
