set -u
W=/tmp/w68; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest --select-class sirocco.dispatch.quant.QmmDefaultPolicyGpuTest --select-class sirocco.dispatch.quant.QmmOpTest > $W/diff.log 2>&1; echo "diff rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found)" $W/diff.log; grep -B2 -A8 "✘" $W/diff.log | head -30
Q="--backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 10"
timeout 90 $T $Q --rows 64,96,128,192,256,384,512,1024 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$? $(date -u +%T)"
grep -E "g64 +[0-9]+ " $W/auto.log | cut -c1-100
timeout 60 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype f16 --repeats 10 --rows 64,256 --kernel auto > $W/f16.log 2>&1; grep -E "g64 +[0-9]+ " $W/f16.log | cut -c1-100
timeout 60 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 8 --dtype bf16 --repeats 10 --rows 256 --kernel auto > $W/b8.log 2>&1; grep -E "g64 +[0-9]+ " $W/b8.log | cut -c1-100
timeout 150 python3 bench/torch_sdpa.py --seq 1024,8192,32768 > $W/torch-plain.log 2>&1; echo "torch plain rc=$? $(date -u +%T)"
grep -E "cudnn|flash" $W/torch-plain.log | grep -v "n/a" | head -30
timeout 150 python3 bench/torch_sdpa.py --rotate --seq 1024,8192,32768 > $W/torch-rot.log 2>&1; echo "torch rot rc=$? $(date -u +%T)"
grep -E "cudnn|flash" $W/torch-rot.log | grep -v "n/a" | head -30
timeout 60 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128 --lq 1 --kernel cudnn > $W/ours-cudnn.log 2>&1; echo "ours cudnn rc=$?"
grep -E "^S=|graph replay" $W/ours-cudnn.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'
cd $W && tar czf $OUT/call68.tgz .
