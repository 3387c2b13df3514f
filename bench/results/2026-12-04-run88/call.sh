set -u
W=/tmp/w88; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
timeout 400 $T --backend cuda bench qmm --n 12288 --k 4096 --copies 8 --dtype bf16 --repeats 8 --sweep-formats --rows 1,2,6 --kernel all > $W/formats-all.log 2>&1; echo "formats rc=$? $(date -u +%T)"
grep -E "graph replay|not run|ERROR" $W/formats-all.log | cut -c1-130
cd $W && tar czf $OUT/call88.tgz .
