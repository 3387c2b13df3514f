set -u
W=/tmp/w44; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 120 $T --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --kernel auto > $W/auto.log 2>&1; echo "auto rc=$? $(date -u +%T)"
for c in "1024 64" "8192 64" "8192 512"; do set -- $c
timeout 120 /usr/local/cuda/bin/ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy -k regex:"decode|combine" --launch-skip 10 --launch-count 2 $T --backend cuda bench sdpa --hq 32 --hkv 8 --seq $1 --head-dim $2 --lq 1 --kernel vector --samples 3 > $W/ncu-s$1-d$2.txt 2>&1; echo "ncu $1 $2 rc=$? $(date -u +%T)"
done
grep -E "^S=|graph replay" $W/auto.log | paste - - | sed -E 's/ +/ /g' | awk '{printf "%s %s %s %s stream=%s graph=", $1,$2,$3,$5,$6; for(i=1;i<=NF;i++) if($i=="p50") print $(i+1)}'; grep -E "device copy" $W/auto.log
grep -E "  [a-zA-Z_]*(decode|combine)|Duration|DRAM Through|Grid Size|Registers Per|Achieved Occ" $W/ncu-*.txt | cut -c1-150
cd $W && tar czf $OUT/call44.tgz .
