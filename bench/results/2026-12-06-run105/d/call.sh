#!/usr/bin/env bash
# run 105, call 4 (H200, warm after call 3, bundle c60cf61), inline command:
S="--copies 8 --repeats 10 --n 12288 --k 4096"; B=".gpu/bin/tornado --backend cuda bench qmm $S"
$B --mode affine --bits 4 --group 64 --dtype bf16 --rows 1,2,4,8,16,32,256 --kernel auto > rows.log
$B --mode mxfp4 --dtype bf16 --rows 17,24,32 --kernel qmm-mma-fp-async,qmm-mma > mx.log
$B --sweep-formats --rows 1,6 --kernel auto > formats.log
