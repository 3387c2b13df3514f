#!/usr/bin/env bash
# Call I (prepare with prepare-i.sh; carry .gpu), the first GPU call after run 116:
#  1. the GPU tests of what run 116 built without a GPU: the driver's tile maps and the swizzle model
#     (TileMapGpuTest, hand-written PTX), JIT-compiled tile pipelines and swizzled warpgroup
#     products (TileCopyTest, SwizzledWarpgroupMmaTest). If these fail, qmm-wgmma-tma cannot be right;
#  2. the shipped-kernel differential (QmmWgmmaTmaKernel's four plans among them);
#  3. qmm-wgmma-tma against qmm-wgmma and qmm-tiled at 256, 128 and 512 rows, same invocation;
#  4. Nsight: L2 requests and sectors by source for the three kernels at 256 rows (run 115's open
#     question: which requests fill the L2), and per-instruction warp states of qmm-wgmma-tma.
set -u
o=$OUT/i; mkdir -p $o
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
timeout 150 .gpu/bin/test-gpu --select-class sirocco.runtime.cuda.TileMapGpuTest \
  --select-class sirocco.jit.TileCopyTest --select-class sirocco.jit.SwizzledWarpgroupMmaTest > $o/infra.log 2>&1
echo "== infra tests rc=$?"; grep -E "tests (successful|failed|skipped)|✘|MethodSource|Assertion|expected" $o/infra.log | cut -c1-220 | head -30
timeout 170 .gpu/bin/test-gpu --select-class sirocco.kernels.diff.ShippedKernelsDifferentialGpuTest > $o/diff.log 2>&1
echo "== differential rc=$?"; grep -E "shipped kernels:|FAIL|QmmWgmmaTma" $o/diff.log | cut -c1-200 | tail -8
B="bench qmm --copies 8 --repeats 10 --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16"
bench() { # rows kernels
  timeout 120 .gpu/bin/tornado --backend cuda $B --rows $1 --kernel $2 > $o/bench-$1.log 2>&1
  echo "== rows $1 rc=$?"; grep -E "graph replay|ERROR|FAILED max|Exception" $o/bench-$1.log | sed 's/(50 launches per replay)//' | cut -c1-150
}
bench 256 qmm-tiled,qmm-wgmma@3x1x4,qmm-wgmma-tma@3x1x4,qmm-wgmma-tma@3x2x3,qmm-wgmma-tma@3x1x3,qmm-wgmma-tma@2x1x4
bench 128 qmm-tiled,qmm-wgmma@3x1x4,qmm-wgmma-tma@3x1x4
bench 512 qmm-tiled,qmm-wgmma@3x1x4,qmm-wgmma-tma@3x1x4
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
P="bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256"
M=lts__t_requests.sum,lts__t_sectors.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_ltcfabric.sum,lts__t_sectors_srcunit_ltcfabric.sum,l1tex__m_xbar2l1tex_read_sectors.sum,smsp__inst_executed_op_ldgsts.sum,sm__cycles_elapsed.avg,gpu__time_duration.sum
# ncu refuses a whole call for one unknown metric: keep only the names this ncu lists for gh100.
$NCU --query-metrics --chip gh100 > $o/metrics.txt 2>&1; echo "query-metrics rc=$?"
K=; for m in ${M//,/ }; do grep -q "^${m%.*} " $o/metrics.txt && K=$K,$m || echo "not listed: $m"; done; [ -n "$K" ] && M=${K#,}
for kk in qmm-wgmma@3x1x4:QmmWgmmaKernel qmm-wgmma-tma@3x1x4:QmmWgmmaTma qmm-tiled:QmmTiled; do
  timeout 90 $NCU --clock-control none --metrics $M -k regex:${kk#*:} --launch-skip 2 --launch-count 1 .gpu/bin/tornado --backend cuda $P --kernel ${kk%%:*} > $o/l2-${kk#*:}.log 2>&1; echo "== ncu l2 ${kk%%:*} rc=$?"
  grep -E "lts__|l1tex__|ldgsts|cycles_elapsed|gpu__time" $o/l2-${kk#*:}.log | sed 's/  */ /g'
done
timeout 90 $NCU --clock-control none --section SourceCounters --section WarpStateStats -k regex:QmmWgmmaTma --launch-skip 2 --launch-count 1 -o $o/src .gpu/bin/tornado --backend cuda $P --kernel qmm-wgmma-tma@3x1x4 > $o/src-ncu.log 2>&1; echo "== ncu src rc=$?"
grep -E "Stall|Warp Cycles|Issued" $o/src-ncu.log | sed 's/  */ /g' | head -20
$NCU --import $o/src.ncu-rep --page source --csv --print-source sass > $o/src-sass.csv 2>&1; echo "sass csv rc=$? lines $(wc -l < $o/src-sass.csv)"
rm -f $o/src.ncu-rep
echo "wall $SECONDS s"; gzip $o/*.log $o/*.csv $o/*.txt 2>/dev/null; true
