set -u
W=/tmp/w12; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T)"
timeout 150 $T --backend cuda bench sdpa --prefill --seq 512,2048,8192 --kernel cudnn --samples 30 --max-seconds 2 > $W/prefill-heur.log 2>&1; echo "heur rc=$? $(date -u +%T)"
timeout 150 $T --jvm -Dsirocco.cudnn.autotune=8 --backend cuda bench sdpa --prefill --seq 512,2048,8192 --kernel cudnn --samples 30 --max-seconds 2 > $W/prefill-tuned.log 2>&1; echo "tuned rc=$? $(date -u +%T)"
timeout 150 python3 bench/torch_sdpa.py --prefill --rotate --seq 512,2048,8192 > $W/torch-prefill.log 2>&1; echo "torch rc=$? $(date -u +%T)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.runtime.cuda.CudaGraphGpuTest --select-class sirocco.dispatch.cudnn.CudnnSdpaGpuTest > $W/tests.log 2>&1; echo "tests rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/tests.log; grep -B1 -A8 "✘" $W/tests.log | head -30; grep "tuned plan" $W/tests.log | head -3
for f in prefill-heur prefill-tuned; do echo "== $f"; grep -E "^S=|graph replay|n/a" $W/$f.log; done
grep -c "cuDNN plan" $W/prefill-tuned.log; grep "cuDNN plan" $W/prefill-tuned.log | cut -c1-400 | head -12
grep "cuDNN plan" $W/prefill-heur.log | cut -c1-200 | head -12
grep -E "torch (cudnn|flash)" $W/torch-prefill.log
cd $W && tar czf $OUT/call12.tgz .
