set -u
W=/tmp/w82; mkdir -p $W
T=.gpu/bin/tornado
echo "start $(date -u +%T) $(cat .gpu/COMMIT)"
one() { tag=$1; seq=$2; d=$3; shift 3
  timeout 60 $T "$@" --backend cuda bench sdpa --hq 32 --hkv 8 --samples 20 --seq $seq --head-dim $d --lq 1 --kernel auto > $W/s-$tag.log 2>&1
  echo "$tag rc=$? $(head -1 $W/s-$tag.log | grep -o '[0-9]* GB/s') $(awk '/^S=/{c=$1" "$2" "$3" "$5" "$6" "$10" r"$11; ok=($0 ~ / ok /)?"ok":"CHECK?"} /graph replay/{print c, "g", $12, ok}' $W/s-$tag.log)"; }
M=-Dsirocco.attention.vectorMma=true
for rep in 1 2; do
for sp in 16 24 32 48 64 96 128; do one s8k-sp$sp-$rep 8192 512 --jvm=$M --jvm=-Dsirocco.sdpa.splits=$sp; done
one s8k-staged-$rep 8192 512
done
for sp in 32 64 128; do one s32k-sp$sp 32768 512 --jvm=$M --jvm=-Dsirocco.sdpa.splits=$sp; done
for sp in 32 48 74 96; do one d256-sp$sp 8192 256 --jvm=$M --jvm=-Dsirocco.sdpa.splits=$sp; done
echo "end $(date -u +%T)"
cd $W && tar czf $OUT/call82.tgz .
