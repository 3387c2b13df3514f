set -u
W=/tmp/w13; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T)"
timeout 120 $T --backend cuda bench qmm --rows 1,2,4,8,16 --n 12288 --k 4096 --group 64 --bits 4 --mode affine --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x2x1,qmm-mma-splitk@32x1x1,qmm-mma,qmv-splitk --copies 8 --repeats 15 --json $W/splitk-bf16.json > $W/splitk-bf16.log 2>&1; echo "splitk bf16 rc=$? $(date -u +%T)"
timeout 60 $T --backend cuda bench qmm --rows 1,8 --n 12288 --k 4096 --group 64 --bits 4 --mode affine --dtype f16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x2x1,qmm-mma --copies 8 --repeats 15 > $W/splitk-f16.log 2>&1; echo "splitk f16 rc=$?"
timeout 60 $T --backend cuda bench qmm --rows 1,8 --n 12288 --k 4096 --group 128 --bits 4 --mode affine --dtype bf16 --kernel qmm-mma-splitk,qmm-mma-splitk@16x2x1,qmm-mma --copies 8 --repeats 15 > $W/splitk-g128.log 2>&1; echo "splitk g128 rc=$? $(date -u +%T)"
timeout 120 $T --backend cuda bench qmm --rows 256 --n 12288 --k 4096 --group 64 --bits 4 --dtype bf16 --kernel qmm-tiled,qmm-tiled@128x128x4x4,qmm-tiled@256x96x3x8,qmm-tiled@128x128x2x8,qmm-tiled@64x128x4x4,qmm-mma --copies 8 --repeats 10 > $W/tiled-256.log 2>&1; echo "tiled 256 rc=$? $(date -u +%T)"
timeout 80 $T --backend cuda bench qmm --rows 64,128 --n 12288 --k 4096 --group 64 --bits 4 --dtype bf16 --kernel qmm-tiled,qmm-tiled@128x128x4x4,qmm-tiled@64x128x4x4,qmm-mma --copies 8 --repeats 10 > $W/tiled-64.log 2>&1; echo "tiled 64 rc=$? $(date -u +%T)"
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 100 $NCU --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats -k regex:QmmMmaSplitK --launch-skip 5 --launch-count 1 $T --backend cuda bench qmm --rows 1 --kernel qmm-mma-splitk --repeats 2 > $W/ncu-splitk1.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
timeout 60 $T --jvm -Dsirocco.cudnn.autotune=8 --backend cuda bench sdpa --prefill --seq 512 --kernel cudnn --samples 30 --max-seconds 2 > $W/prefill-tuned.log 2>&1; echo "tuned rc=$? $(date -u +%T)"
timeout 120 $T --backend cuda bench sdpa --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --samples 30 --max-seconds 2 > $W/decode-graph.log 2>&1; echo "decode rc=$? $(date -u +%T)"
timeout 170 .gpu/bin/test-gpu --select-class sirocco.dispatch.cudnn.CudnnProbeGpuTest --select-class sirocco.dispatch.cudnn.CudnnSdpaGpuTest --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-package sirocco.dispatch.quant > $W/tests.log 2>&1; echo "tests rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/tests.log; grep -B1 -A8 "✘" $W/tests.log | head -30; grep -E "tuned plan|HOST" $W/tests.log | head -8
grep -E "^ *[0-9]+ +(qmm|qmv)|rows|MISMATCH|FAIL|Error|error" $W/splitk-bf16.log | head -40
grep -E "^ *[0-9]+ +(qmm|qmv)|MISMATCH|FAIL" $W/splitk-f16.log $W/splitk-g128.log $W/tiled-256.log $W/tiled-64.log | head -40
grep -E "^S=|graph replay|plan:" $W/prefill-tuned.log | cut -c1-300
grep -E "^S=|graph replay" $W/decode-graph.log
grep -E "Duration|Registers|Achieved Occupancy|Theoretical Occupancy|Memory Throughput|Issue Slots|Block Limit|Waves" $W/ncu-splitk1.txt | head -20
cd $W && tar czf $OUT/call13.tgz .
