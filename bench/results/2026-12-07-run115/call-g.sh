#!/usr/bin/env bash
# run 115 call G: call F found e (x a line per quarter warp, LBO 2064) 5 us slower than run 114's
# x mapping, and w2/b2 4 us faster than e. b2x: b2 (ec36a14) with run 114's x mapping and LBO 2080
# (b2x.diff), timed against b2 and qmm-tiled in the same call. Then
# Nsight's per-instruction warp states of b2 @3x1x4, if time is left.
set -u
o=$OUT/g; mkdir -p $o
J=sirocco-tornado-kernels-0.1.0-SNAPSHOT.jar
B="bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
bench() { # tag rows kernels
  timeout 100 .gpu/bin/tornado --backend cuda $B --rows $2 --kernel $3 > $o/$1-bench-$2.log 2>&1
  echo "== $1 rows $2 rc=$?"; grep -E "graph replay|ERROR|FAILED max|Exception" $o/$1-bench-$2.log | sed 's/(50 launches per replay)//' | cut -c1-150
}
cp .gpu/alt3/$J .gpu/lib/$J; echo "== jar b2x"
# No differential: too little device time was left (282 s); the bench's own check against the Java
# backend still runs on each kernel's output.
bench b2x 256 qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3,qmm-wgmma@3x1x4
bench b2x 128 qmm-tiled,qmm-wgmma@3x1x3
cp .gpu/alt2/$J .gpu/lib/$J; echo "== jar b2"
bench b2 256 qmm-tiled,qmm-wgmma@3x1x3,qmm-wgmma@3x1x4
# Where the warps wait, per SASS instruction: warp-state samples of one b2 launch at 256 rows.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
P="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256"
if [ $SECONDS -lt 100 ]; then
  timeout 60 $NCU --clock-control none --section SourceCounters --section WarpStateStats -k regex:QmmWgmma --launch-skip 2 --launch-count 1 -o $o/src .gpu/bin/tornado --backend cuda $P --kernel qmm-wgmma@3x1x4 > $o/src-ncu.log 2>&1; echo "== ncu src rc=$?"
  $NCU --import $o/src.ncu-rep --page source --csv --print-source sass > $o/src-sass.csv 2>&1; echo "sass csv rc=$? lines $(wc -l < $o/src-sass.csv)"
  rm -f $o/src.ncu-rep
else echo "no time for the source view ($SECONDS s)"; fi
echo "wall $SECONDS s"; gzip $o/*.log $o/*.csv 2>/dev/null; true
