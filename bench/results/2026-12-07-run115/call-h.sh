#!/usr/bin/env bash
# Call H (prepare with prepare-h.sh; carry .gpu): call G as it was meant, with the differential,
# and the L2 request breakdown run 115 lacked. Run 115 found the L2 ~75% busy with ~10.4 M requests
# a launch that the copies it cut do not account for (~7.5 M sectors of x, words and scale/bias
# runs), and the waits on the copies unchanged.
#  1. b2x (b2 with run 114's x copy mapping): differential, then 256/128 rows against b2 and
#     qmm-tiled in the same call;
#  2. Nsight, 256 rows: per-instruction warp states of b2 @3x1x4 (which instruction the
#     long-scoreboard waits sit on), then the L2 requests by source and operation, b2 and qmm-tiled.
set -u
o=$OUT/h; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
J=sirocco-tornado-kernels-0.1.0-SNAPSHOT.jar
mkdir -p /tmp/jars && cp .gpu/lib/$J /tmp/jars/b2.jar && cp .gpu/alt3/$J /tmp/jars/b2x.jar
use() { cp /tmp/jars/$1.jar .gpu/lib/$J && echo "== jar $1"; }
B="bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
bench() { # tag rows kernels
  timeout 100 .gpu/bin/tornado --backend cuda $B --rows $2 --kernel $3 > $o/$1-bench-$2.log 2>&1
  echo "== $1 rows $2 rc=$?"; grep -E "graph replay|ERROR|FAILED max|Exception" $o/$1-bench-$2.log | sed 's/(50 launches per replay)//' | cut -c1-150
}
use b2x
timeout 150 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/b2x-diff.log 2>&1; echo "b2x diff rc=$?"
grep -E "shipped kernels:|FAIL" $o/b2x-diff.log | cut -c1-200 | tail -4
bench b2x 256 qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3,qmm-wgmma@3x1x4
bench b2x 128 qmm-tiled,qmm-wgmma@3x1x3
use b2
bench b2 256 qmm-tiled,qmm-wgmma@3x2x3,qmm-wgmma@3x1x3,qmm-wgmma@3x1x4
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
P="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256"
timeout 90 $NCU --clock-control none --section SourceCounters --section WarpStateStats -k regex:QmmWgmma --launch-skip 2 --launch-count 1 -o $o/src .gpu/bin/tornado --backend cuda $P --kernel qmm-wgmma@3x1x4 > $o/src-ncu.log 2>&1; echo "== ncu src rc=$?"
$NCU --import $o/src.ncu-rep --page source --csv --print-source sass > $o/src-sass.csv 2>&1; echo "sass csv rc=$? lines $(wc -l < $o/src-sass.csv)"
rm -f $o/src.ncu-rep
M=lts__t_requests.sum,lts__t_sectors.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric.sum,lts__t_requests_srcnode_gpc.sum,l1tex__m_xbar2l1tex_read_sectors.sum,l1tex__m_l1tex2xbar_req.sum,smsp__inst_executed_op_ldgsts.sum,sm__cycles_elapsed.avg
# ncu refuses the whole call for one unknown metric: keep only the names this ncu lists for gh100.
$NCU --query-metrics --chip gh100 > $o/metrics.txt 2>&1; echo "query-metrics rc=$? $(grep -c '^lts__t_' $o/metrics.txt) lts__t_ names"
grep -E '^lts__t_(requests|sectors)_src' $o/metrics.txt | cut -c1-120 | head -40
K=; for m in ${M//,/ }; do grep -q "^${m%.*} " $o/metrics.txt && K=$K,$m || echo "not listed: $m"; done; [ -n "$K" ] && M=${K#,}
for kk in qmm-wgmma@3x1x4:QmmWgmma qmm-tiled:QmmTiled; do
  timeout 90 $NCU --clock-control none --metrics $M -k regex:${kk#*:} --launch-skip 2 --launch-count 1 .gpu/bin/tornado --backend cuda $P --kernel ${kk%%:*} > $o/l2-${kk#*:}.log 2>&1; echo "== ncu l2 ${kk%%:*} rc=$?"
  grep -E "lts__|l1tex__|ldgsts|cycles_elapsed" $o/l2-${kk#*:}.log | sed 's/  */ /g'
done
echo "wall $SECONDS s"; gzip $o/*.log $o/*.csv $o/*.txt 2>/dev/null; true
