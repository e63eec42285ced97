#!/usr/bin/env bash
# Movement tests of pinned scenarios (testbenches/cli/scenario_numbers.txt): each scenario
# runs as shipped (a) and with one parameter or input moved (b), and a pinned figure must
# move the way the mechanism the model implements says, by the size it gives (exactly where
# it gives one, else within a range derived below). Every such check (check_moves) also fails
# when b equals a, so a model that ignores the parameter fails it.
#   usage: movement_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup movement "$@"
S="$SRC/scenarios"

# moves DESCRIPTION EXPRESSION TAG_A TAG_B STAT: check_moves on STAT of the two runs (a, b),
# their values shown in the description.
moves() {
  local va vb
  va=$(stat "$3" "$5")
  vb=$(stat "$4" "$5")
  check_moves "$1 ($5: $va -> $vb)" "$2" "$va" "$vb"
}
# mode: the index of a histogram's largest bin (a stat printed as a list).
mode() { echo "(lambda h: h.index(max(h)))($(stat "$1" "$2"))"; }

# 1. simt/divergence, warp_size 32 -> 16. The branch tests %laneid < 16: with 32-thread warps
#    lanes 0-15 take the then-path (4 instructions) and 16-31 the else-path (3), both issued
#    with 16 active lanes, around 12 + 4 instructions with all 32: 8 warps x 23 = 184, 8
#    divergent branches. With 16-thread warps every lane id is below 16: no warp diverges,
#    and each of the 16 warps issues 12 + 4 + 4 = 20 instructions, all 16 lanes active.
run div_a "$S/simt/divergence.json"
run div_b "$S/simt/divergence.json" --set modules.sm.warp_size=16
moves "divergence: 16-thread warps never diverge: 16 warps x 20 instructions" \
  "a == 8 * 23 and b == 16 * 20" div_a div_b instructions
moves "divergence: ... no divergent branch" "a == 8 and b == 0" div_a div_b top.sm.divergent_branches
check_moves "divergence: ... every issue with 16 active lanes" "a == 8 * 7 and b == 16 * 20" \
  "$(stat div_a top.sm.active_lanes_per_issue)[16]" "$(stat div_b top.sm.active_lanes_per_issue)[16]"

# 2. simt/gtx285_core, block 256 -> 128 threads (grid 64). The block sum is a tree of
#    log2(ntid) halving steps. Per block of W warps: 12 set-up instructions a warp (load,
#    store to shared, barrier, first halving), 6 a warp a step (test, branch, barrier,
#    halve, test, branch), 6 more for each warp with a thread still adding at that step
#    (ceil(s / 32) warps at stride s), 2 a warp to exit and 6 for thread 0's store:
#    W = 8, 8 steps: 96 + 384 + 6 x (4+2+1+1+1+1+1+1) + 16 + 6 = 574;
#    W = 4, 7 steps: 48 + 168 + 6 x (2+1+1+1+1+1+1) + 8 + 6 = 278.
run gtx_a "$S/simt/gtx285_core.json"
run gtx_b "$S/simt/gtx285_core.json" --set workload.block=128
moves "gtx285_core: 128-thread blocks: one halving step and half the warps fewer" \
  "a == 64 * 574 and b == 64 * 278" gtx_a gtx_b instructions

# 3. vector/lanes8_vl32, lanes 8 -> 4. Each of the three chained units (load, multiply, add)
#    starts one group of `lanes` elements a cycle in the steady state, so the peak and most
#    frequent rate is 3 x lanes element operations a cycle: 24, then 12 (4 consecutive words
#    a cycle on 64 banks busy 8 cycles never wait for a bank). Each unit then needs at least
#    4096 / 4 cycles for its 4096 elements.
run l8_a "$S/vector/lanes8_vl32.json"
run l8_b "$S/vector/lanes8_vl32.json" --set modules.vpu.lanes=4
moves "lanes8_vl32: 4 lanes: 3 units x 4 elements a cycle at the peak" \
  "a == 3 * 8 and b == 3 * 4" l8_a l8_b top.vpu.peak_element_ops_per_cycle
check_moves "lanes8_vl32: ... and as the most frequent rate" "a == 24 and b == 12" \
  "$(mode l8_a top.vpu.element_ops_per_cycle)" "$(mode l8_b top.vpu.element_ops_per_cycle)"
moves "lanes8_vl32: ... at least 4096 / 4 cycles" "b > a and b >= 4096 / 4" l8_a l8_b cycles

# 4. vector/strip_mine_527, max_vl 64 -> 32. setvl takes VL = min(remaining, max_vl): 527
#    elements are 8 strips of 64 + 1 of 15 (9 iterations of the 10-instruction loop + 4
#    set-up = 94), or 16 strips of 32 + 1 of 15 (17 iterations: 174). Each element is
#    loaded and stored once either way (1054 memory elements); the 8 extra strips each add
#    a start-up, so the run is longer.
run sm_a "$S/vector/strip_mine_527.json"
run sm_b "$S/vector/strip_mine_527.json" --set modules.vpu.max_vl=32
moves "strip_mine_527: 32-element registers: 17 strips" "a == 9 * 10 + 4 and b == 17 * 10 + 4" \
  sm_a sm_b instructions
moves "strip_mine_527: ... and a longer run" "b > a" sm_a sm_b cycles

# 5. vector/gather_scatter, the memory's bank latency 11 -> 12. The five memory instructions
#    (index load, value load, scatter, gather, store; 4 elements each, 20 in all) share one
#    port, held until the last element is done, and touch distinct or long-idle banks: each
#    waits the bank latency once on the run's critical path, so one more cycle of latency
#    adds exactly 5 cycles.
run gs_a "$S/vector/gather_scatter.json"
run gs_b "$S/vector/gather_scatter.json" --set modules.mem.latency=12
moves "gather_scatter: one more cycle of bank latency, 5 port-held accesses in turn" \
  "b == a + 5" gs_a gs_b cycles

# 6. memory/hierarchy_vecadd, the L2's writes write_back -> write_through. The 256 warp
#    stores (128 B each) go through the write-through L1. A write-back L2 allocates each
#    (write-validate: a miss that fetches nothing) and never evicts in 256 KB, so the DRAM
#    sees only the 512 load fills; a write-through L2 looks none of them up and sends each
#    on: 256 DRAM writes, 256 x 128 more bytes, 256 fewer L2 misses (the 512 read misses).
run hv_a "$S/memory/hierarchy_vecadd.json"
run hv_b "$S/memory/hierarchy_vecadd.json" --set modules.l2.writes=write_through
moves "hierarchy_vecadd: a write-through L2 sends the 256 stores to the DRAM" \
  "a == 0 and b == 256" hv_a hv_b top.dram.writes
moves "hierarchy_vecadd: ... and allocates none of them in the L2" "b == a - 256 == 512" \
  hv_a hv_b top.l2.misses

# 7. gmma/calibration_h100, smem64 banks 32 -> 16. gmma_n64 reads each K block's A (64 x 16
#    fp16, 2 KB) and B (2 KB) as 32 requests of 128 B, one a cycle, while its datapath needs
#    64 x 64 x 16 / (4 x 512) = 32 cycles: the interval is the larger, 32. On 16 banks x 4 B
#    a 128-byte request takes two wavefronts: 64 cycles of reads per K block, interval 64.
#    gmma_n256 (its own shared memory) keeps 128. The scenario's calibration entries compare
#    the intervals with the published 32 and 128, which a moved memory is meant to miss:
#    both runs leave them out.
run ca_a "$S/gmma/calibration_h100.json" --set 'calibration=[]'
run ca_b "$S/gmma/calibration_h100.json" --set 'calibration=[]' --set modules.smem64.banks=16
moves "calibration_h100: 16 banks: two wavefronts per 128-byte read, reads bound the interval" \
  "a == 32 and b == 2 * 32" ca_a ca_b top.gmma_n64.mma_interval
moves "calibration_h100: ... twice the wavefronts" "b == 2 * a" ca_a ca_b top.smem64.wavefronts
check "calibration_h100: gmma_n256 keeps its interval of 128" \
  "$(stat ca_b top.gmma_n256.mma_interval) == 128"

# 8. gmma/h100_sm_gemm_cooperative, tc0's fma_per_cycle 512 -> 256. Tensor core 0 computes
#    warp 0's and warp 4's 16-row slices of every wgmma.m64n256k16 (512 slices of 16 x 256 x
#    16 FMAs): 128 cycles each at 512 a cycle, 256 at 256, exactly twice the busy cycles;
#    the other tensor cores keep theirs. The run grows, by at most tc0's extra busy cycles.
run co_a "$S/gmma/h100_sm_gemm_cooperative.json"
run co_b "$S/gmma/h100_sm_gemm_cooperative.json" --set modules.tc0.fma_per_cycle=256
moves "h100_sm_gemm_cooperative: tensor core 0 at half rate is busy twice as long" \
  "a == 512 * 16 * 256 * 16 // 512 and b == 2 * a" co_a co_b top.tc0.busy_cycles
check "h100_sm_gemm_cooperative: tensor core 1 keeps its 65536 busy cycles" \
  "$(stat co_b top.tc1.busy_cycles) == 65536"
moves "h100_sm_gemm_cooperative: ... and the run is longer by at most the extra busy time" \
  "0 < b - a <= $(stat co_a top.tc0.busy_cycles)" co_a co_b cycles

# 9. gmma/wgmma_types, tc0's fma_per_cycle 512 -> 256. Tensor core 0 computes warp 0's 16
#    rows of each wgmma: the e4m3 x e5m2 m64n64k32 (16 x 64 x 32 FMAs at twice the 16-bit
#    rate: 32 cycles) and two tf32 m64n64k8 (16 x 64 x 8 at half the rate: 32 cycles each),
#    96 busy cycles; every rate halves with fma_per_cycle: 192.
run wt_a "$S/gmma/wgmma_types.json"
run wt_b "$S/gmma/wgmma_types.json" --set modules.tc0.fma_per_cycle=256
moves "wgmma_types: fp8 and tf32 blocks at half the rate on tensor core 0" \
  "a == 32 + 2 * 32 and b == 2 * a" wt_a wt_b top.tc0.busy_cycles

# 10. gmma/mma_sync, rf0's crossbar 256 -> 128 B a cycle. A read takes ceil(bytes / width)
#     crossbar cycles. rf0 answers warp 0's two mma.sync reads of 10 registers (1280 B:
#     5 cycles at 256) and 30 instruction-operand reads of one or two registers (one cycle
#     each): 40. At 128 B, one warp register, every register read takes a cycle: as many
#     crossbar cycles as registers read (2 x 10 + 42 = 62). rf1 (warp 1) keeps 40.
run ms_a "$S/gmma/mma_sync.json"
run ms_b "$S/gmma/mma_sync.json" --set modules.rf0.crossbar_bytes_per_cycle=128
moves "mma_sync: a 128-byte crossbar carries one register a cycle" \
  "a == 2 * 5 + 30 and b == $(stat ms_b top.rf0.reads) == 2 * 10 + 42" \
  ms_a ms_b top.rf0.crossbar_cycles

# 11. gmma/tma_copy, the loaded tensor's rows 64 -> 66. The 64 x 8 box (rows of 128 B) starts
#     at row 60: rows 64-67 lie outside a 64-row tensor (512 B loaded as zeros, 4 rows read),
#     only rows 66-67 outside a 66-row one (256 B; 6 rows read). The box is 1024 B either way,
#     and the store's tensor, unchanged, still receives 4 rows.
run tc_a "$S/gmma/tma_copy.json"
run tc_b "$S/gmma/tma_copy.json" --set 'workload.tensor_maps.0.dims=[64,66]'
moves "tma_copy: two more rows inside the tensor, two fewer as zeros" \
  "a == 4 * 128 and b == 2 * 128" tc_a tc_b top.tma.oob_bytes
moves "tma_copy: ... two more rows read from global memory" "b == a + 2" tc_a tc_b top.tma.global_requests
check "tma_copy: still 4 rows, 512 bytes, stored" "$(stat tc_b top.tma.bytes_stored) == 512"

# 12. ptx/saxpy, n 8000 -> 8192 (4096 threads, grid-stride loop). A thread runs 15
#     instructions plus 10 per element it handles, so each element adds exactly 10 thread
#     instructions. At 8000, warps 0-121 handle two elements a thread and warps 122-127
#     (threads 3904-4095) one; at 8192 those 6 warps run a second iteration: 60 more warp
#     instructions. The run is longer, by at most their issue time (4 cycles each on 8
#     lanes) and one exposed chain of their two loads and one store (208 cycles each: the
#     memory's 200 and the load/store unit's 4 before and 4 after).
run sx_a "$S/ptx/saxpy.json"
run sx_b "$S/ptx/saxpy.json" --set workload.params.saxpy_param_0=8192
moves "saxpy: 192 more elements, 10 thread instructions each" "b == a + 10 * 192" \
  sx_a sx_b top.sm.thread_instructions
moves "saxpy: ... a second iteration for 6 warps" "b == a + 6 * 10" sx_a sx_b instructions
moves "saxpy: ... a longer run, by at most their issue and one exposed access chain" \
  "0 < b - a <= 4 * 60 + 3 * 208" sx_a sx_b cycles

# 13. ptx/index2d, max_warps 32 -> 16. A block is 32 x 16 threads, 16 warps: warp slots,
#     thread contexts (1024) and registers (13 x 512 x 4 B of 64 KB) each hold two, 16 warp
#     slots one. The core is issue-bound (4 cycles a warp instruction on 8 lanes, the same
#     7488 instructions), and a second block covers a block's global accesses: alone, each
#     of the 16 blocks exposes at most its load and its store (208 cycles each, as in
#     saxpy above).
run ix_a "$S/ptx/index2d.json"
run ix_b "$S/ptx/index2d.json" --set modules.sm.max_warps=16
moves "index2d: 16 warp slots hold one 16-warp block" "a == 2 and b == 1" \
  ix_a ix_b top.sm.resident_blocks_peak
check "index2d: the same 7488 instructions" "$(stat ix_b instructions) == 7488"
moves "index2d: ... longer, by at most a load and a store per block" "0 < b - a <= 16 * 2 * 208" \
  ix_a ix_b cycles

# 14. ptx/reduce_shared, shared-memory latency 20 -> 40. No shared access has a bank
#     conflict, so each shared load takes exactly 20 cycles longer. A block's barrier-
#     separated tree is a chain of 26 shared accesses (the first store, 8 steps of load,
#     load, store, one at a time with one instruction in flight, thread 0's final load), 20
#     cycles longer each: 520 a block; four blocks are resident (1024 threads), 32 blocks
#     run in 8 rounds, so the run grows by at least one block's 520 and at most 8 x 520.
run rs_a "$S/ptx/reduce_shared.json"
run rs_b "$S/ptx/reduce_shared.json" --set modules.smem.latency=40
moves "reduce_shared: 20 more cycles for every shared load" "b == a + 20" \
  rs_a rs_b top.sm.shared_load_latency
moves "reduce_shared: ... the run grows by 26 x 20 a block, over 8 rounds of 4 blocks at most" \
  "26 * 20 <= b - a <= 8 * 26 * 20" rs_a rs_b cycles

# 15. ptx/reduce_shfl, global-memory latency 200 -> 400. Each warp waits for two global
#     accesses in turn (its load, then lane 0's atomic add, with one instruction in flight),
#     every load 200 cycles longer. Four blocks are resident, 32 run in 8 rounds: the run
#     grows by at least the last round's two accesses (2 x 200) and at most 8 x 2 x 200. The
#     256 atomics (one per warp) stay.
run rf_a "$S/ptx/reduce_shfl.json"
run rf_b "$S/ptx/reduce_shfl.json" --set modules.gmem.latency=400
moves "reduce_shfl: 200 more cycles for every global load" "b == a + 200" \
  rf_a rf_b top.sm.global_load_latency
moves "reduce_shfl: ... the run grows by 2 accesses x 200 a round, over at most 8 rounds" \
  "2 * 200 <= b - a <= 8 * 2 * 200" rf_a rf_b cycles

# 16. ptx/gemm_ws64, register_file_bytes 262144 -> 131072. A block holds 100 registers x 256
#     threads x 4 B = 102400 B: two fit in 256 KB, one in 128 KB. Its 8 blocks then run one
#     after another instead of two at a time: longer, and at most twice as long (a block
#     sharing the SM with another is never faster than alone).
run gw_a "$S/ptx/gemm_ws64.json"
run gw_b "$S/ptx/gemm_ws64.json" --set modules.sm.register_file_bytes=131072
moves "gemm_ws64: 128 KB of registers hold one block of 100 x 256 registers" "a == 2 and b == 1" \
  gw_a gw_b top.sm.resident_blocks_peak
moves "gemm_ws64: ... longer, at most twice as long" "a < b <= 2 * a" gw_a gw_b cycles

sensitivity_end "movement"
