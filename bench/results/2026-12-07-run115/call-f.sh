#!/usr/bin/env bash
# run 115 call F: three kernels jars in one call, timed against qmm-tiled each time.
#  e:  the bundle's own (2cc691e): x a 128-byte line per quarter warp, odd steps reading the even
#      step's scale/bias pair (run 114's call E, never run);
#  w2: .gpu/alt's (a3eddf0): on top of that, a step pair's words (64 B a feature) and scale/bias runs
#      copied once with the even step into pair slots of their own;
#  b2: .gpu/alt2's (ec36a14): on top of w2, one block barrier per two steps (one more slot).
# Each: the differential first (a wrong slot would show there), then 256/128/512 rows. Then Nsight's
# request counts at 256 rows (3x1x3): b2, then e while time is left. Newest first, in case time runs out.
set -u
o=$OUT/f; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
B="bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
bench() { # tag rows kernels
  timeout 120 .gpu/bin/tornado --backend cuda $B --rows $2 --kernel $3 > $o/$1-bench-$2.log 2>&1
  echo "== $1 rows $2 rc=$?"; grep -E "graph replay|ERROR|FAILED max|Exception" $o/$1-bench-$2.log | sed 's/(50 launches per replay)//' | cut -c1-150
}
set_of() { # tag
  timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/$1-diff.log 2>&1; echo "$1 diff rc=$?"
  grep -E "shipped kernels:|FAIL" $o/$1-diff.log | cut -c1-200 | tail -6
  bench $1 256 qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3,qmm-wgmma@3x1x4,qmm-wgmma@3x2x4,qmm-wgmma@2x1x3
  bench $1 128 qmm-tiled,qmm-wgmma@3x1x3,qmm-wgmma@3x2x3
  bench $1 512 qmm-tiled,qmm-wgmma@3x1x3,qmm-wgmma@3x2x3
}
J=sirocco-tornado-kernels-0.1.0-SNAPSHOT.jar
mkdir -p /tmp/jars && cp .gpu/lib/$J /tmp/jars/e.jar && cp .gpu/alt/$J /tmp/jars/w2.jar && cp .gpu/alt2/$J /tmp/jars/b2.jar
use() { cp /tmp/jars/$1.jar .gpu/lib/$J && echo "== jar $1"; }
use b2; set_of b2
use w2; set_of w2
use e; set_of e
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
P="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256"
prof() { # tag
  timeout 120 $NCU --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,lts__t_requests.sum,lts__t_sectors.sum,l1tex__t_requests.sum,smsp__inst_executed.sum -k regex:QmmWgmma --launch-skip 2 --launch-count 1 -o $o/$1 .gpu/bin/tornado --backend cuda $P --kernel qmm-wgmma@3x1x3 > $o/$1-ncu.log 2>&1; echo "== ncu $1 rc=$?"
  $NCU --import $o/$1.ncu-rep --print-summary none > $o/$1-ncu.txt 2>&1
  grep -E "Duration|Mem Busy|Max Bandwidth|L1/TEX Hit|L2 Hit|No Eligible|stalled_(barrier|long_scoreboard|wait|short_scoreboard)|pipe_tensor|requests|sectors|inst_executed" $o/$1-ncu.txt | sed 's/  */ /g'
  rm -f $o/$1.ncu-rep
}
use b2; prof b2
if [ $SECONDS -lt 480 ]; then use e; prof e; else echo "no time for ncu e ($SECONDS s)"; fi
echo "wall $SECONDS s"; gzip $o/*.log $o/*.txt 2>/dev/null; true
