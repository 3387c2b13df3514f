set -u
W=/tmp/w57; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
timeout 380 .gpu/bin/test-gpu > $W/suite.log 2>&1; echo "suite rc=$? $(date -u +%T)"
grep -E "tests (successful|failed|found|skipped|aborted)" $W/suite.log; grep -B2 -A8 "✘" $W/suite.log | head -60
S="--backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1,2,3 --kernel auto"
timeout 110 $T $S > $W/sdpa.log 2>&1; echo "sdpa rc=$? $(date -u +%T)"
grep -E "^S=|graph replay" $W/sdpa.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep "device copy" $W/sdpa.log
NCU=/usr/local/cuda/bin/ncu
timeout 90 $NCU --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis -k regex:QmmTiled --launch-skip 2 --launch-count 1 $T --backend cuda bench qmm --n 12288 --k 4096 --mode affine --copies 8 --group 64 --bits 4 --dtype bf16 --repeats 2 --rows 256 --kernel qmm-tiled@256x96x3x8x2 > $W/ncu-tiled.txt 2>&1; echo "ncu rc=$? $(date -u +%T)"
grep -E "Duration|Throughput|Registers|Achieved Occupancy|Theoretical Occupancy|Issued Ipc|No Eligible|Stall|Block Limit|Shared Memory Configuration|Dynamic Shared" $W/ncu-tiled.txt | head -40
cd $W && tar czf $OUT/call57.tgz .
