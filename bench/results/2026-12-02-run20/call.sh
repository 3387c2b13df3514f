set -u
W=/tmp/w11; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T)"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/smi.txt 2>&1
for K in 0 2 4 8 16 32 64; do
  J=""; [ $K -gt 0 ] && J="--jvm -Dsirocco.sdpa.splits=$K"
  timeout 60 $T $J --backend cuda bench sdpa --seq 1024 --head-dim 64,128,256 --lq 1 --kernel vector --samples 30 > $W/s1k-$K.log 2>&1; echo "s1k splits=$K rc=$?"
done
for K in 0 16 32 64 128 256; do
  J=""; [ $K -gt 0 ] && J="--jvm -Dsirocco.sdpa.splits=$K"
  timeout 60 $T $J --backend cuda bench sdpa --seq 8192,32768 --head-dim 256,512 --lq 1 --kernel vector --samples 30 > $W/slong-$K.log 2>&1; echo "slong splits=$K rc=$? $(date -u +%T)"
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu=$NCU nsys=$(command -v nsys)"
if [ -n "$NCU" ]; then
  timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread -k regex:'sdpa|fmha|flash|attn|Sdpa|cudnn' --launch-skip 10 --launch-count 12 --csv $T --backend cuda bench sdpa --prefill --seq 512 --head-dim 64,128 --kernel cudnn --samples 3 --max-seconds 1 > $W/ncu-sirocco.csv 2>$W/ncu-sirocco.err; echo "ncu sirocco rc=$?"
  timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread -k regex:'sdpa|fmha|flash|attn|cudnn' --launch-skip 10 --launch-count 40 --csv python3 bench/torch_sdpa.py --prefill --seq 512 > $W/ncu-torch.csv 2>$W/ncu-torch.err; echo "ncu torch rc=$? $(date -u +%T)"
  timeout 120 $NCU --clock-control none --metrics gpu__time_duration.sum -k regex:'.' --launch-skip 0 --launch-count 400 --csv $T --backend cuda bench sdpa --prefill --seq 512 --head-dim 64 --kernel cudnn --samples 2 --max-seconds 1 > $W/ncu-sirocco-all.csv 2>&1; echo "ncu sirocco all rc=$?"
fi
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $W/tests.log 2>&1; echo "tests rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/tests.log; grep -B1 -A6 "✘" $W/tests.log | head -20
for f in $W/s1k-*.log $W/slong-*.log; do echo "== $f"; grep -E "^ *(1024|8192|32768)|vector" $f | head -8; done
cd $W && tar czf $OUT/call11.tgz .
