#!/usr/bin/env bash
# run 102, call 2: two row tiles against split-K at 33-72 rows; early refill with two tiles; Nsight on qmm-tiled at 256 rows
set -u
o=$OUT/run102b; mkdir -p $o
echo "start $(date -u +%T)"
B=".gpu/bin/tornado --backend cuda bench qmm --copies 8 --repeats 10 --n 12288 --k 4096"
timeout 150 $B --mode affine --bits 4 --group 64 --dtype bf16 --rows 16,32,40,48,56,64,72 --kernel qmm-mma-async@16x2x2,qmm-mma-async@16x2x2x1x1,qmm-mma-splitk > $o/g64.log 2>&1; echo rc=$? >> $o/g64.log
grep -E "graph replay|FAILED|ERROR|rc=" $o/g64.log; echo "t $(date -u +%T)"
timeout 80 $B --mode affine --bits 4 --group 128 --dtype bf16 --rows 48,64,72 --kernel qmm-mma-async@16x2x2,qmm-mma-splitk > $o/g128.log 2>&1; echo rc=$? >> $o/g128.log
timeout 80 $B --mode affine --bits 4 --group 64 --dtype f16 --rows 48,64,72 --kernel qmm-mma-async@16x2x2,qmm-mma-splitk > $o/f16.log 2>&1; echo rc=$? >> $o/f16.log
grep -E "graph replay|FAILED|ERROR|rc=" $o/g128.log $o/f16.log; echo "t $(date -u +%T)"
NCU=/usr/local/cuda/bin/ncu
timeout 150 $NCU --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats --metrics smsp__inst_executed_pipe_alu.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_lsu.sum,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum -k regex:QmmTiled --launch-skip 2 --launch-count 1 .gpu/bin/tornado --backend cuda bench qmm --n 12288 --k 4096 --mode affine --bits 4 --group 64 --dtype bf16 --copies 8 --repeats 2 --rows 256 --kernel qmm-tiled > $o/ncu-tiled.txt 2>&1; echo "ncu rc=$?"
grep -E "Duration|Registers Per|Shared Memory Config|Dynamic Shared|Static Shared|Block Size|Grid Size|Issued Ipc|No Eligible|Achieved Occupancy|Theoretical Occupancy|DRAM Throughput|Compute \(SM\)|Memory Throughput|L1/TEX Hit|pipe_[a-z]+.sum|inst_executed.sum|hmma|bank_conflicts|wavefronts" $o/ncu-tiled.txt | head -40
grep -E "Stall|stall" $o/ncu-tiled.txt | head -20
echo "end $(date -u +%T)"
