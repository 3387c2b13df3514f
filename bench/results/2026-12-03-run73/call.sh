set -u
W=/tmp/w73; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
one() { # $1 tag, rest: extra tornado options
  tag=$1; shift
  timeout 40 $T "$@" --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq 8192 --head-dim 512 --lq 1 --kernel auto > $W/s-$tag.log 2>&1
  echo "$tag $(head -1 $W/s-$tag.log | grep -o '[0-9]* GB/s') $(grep -E '^S=' $W/s-$tag.log | sed -E 's/ +/ /g' | cut -d' ' -f6-10) g: $(grep 'graph replay' $W/s-$tag.log | grep -o 'p50 [0-9.]*')"
}
for rep in 1 2 3; do
  one def-$rep
  for s in 16 24 40 48 64; do one sp$s-$rep --jvm=-Dsirocco.sdpa.splits=$s; done
  one early-$rep --jvm=-Dsirocco.attention.earlyStart=true
done
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call73.tgz .
