set -u
W=/tmp/w85; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
S="--backend cuda bench sdpa --hq 32 --hkv 8 --samples 20"
summ() { echo "$1 $(head -1 $2 | grep -o '[0-9]* GB/s')"; awk '/^S=/{c=$1" "$2" "$3" "$5" "$6" "$10" r"$11; ok=($0 ~ / ok /)?"ok":"CHECK?"} /graph replay/{print c, "g", $12, ok}' $2; }
timeout 150 $T $S --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1,2,3 > $W/grid.log 2>&1; echo "grid rc=$?"; summ grid $W/grid.log
timeout 90 $T $S --seq 1024,8192,32768 --head-dim 64,128,256,512 --lq 1 --copies 1 > $W/grid-1copy.log 2>&1; echo "1copy rc=$?"; summ 1copy $W/grid-1copy.log
for r in 1 2 3 4 5; do timeout 40 $T $S --seq 8192 --head-dim 512 --lq 1 > $W/d512-$r.log 2>&1; echo "d512-$r rc=$?"; summ d512-$r $W/d512-$r.log; grep -i 'stream' $W/d512-$r.log | head -3; done
timeout 60 $T --backend cuda demo > $W/demo.log 2>&1; echo "demo rc=$?"; tail -6 $W/demo.log
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call85.tgz .
