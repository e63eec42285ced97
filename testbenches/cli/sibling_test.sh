#!/usr/bin/env bash
# Sibling scenarios: pinned scenario pairs that differ in one parameter or one input, run
# side by side; for each pair the figures that the difference moves are checked against what
# the mechanism predicts (the direction, strictly, and the size: an exact equality where the
# mechanism gives one, else a range derived in the comment). check_moves also fails when the
# two figures are equal, so a model that ignores the difference fails. Where a check holds
# several figures, a and b are tuples (a[0], b[0]: the first figure of each run).
#   usage: sibling_test.sh FLYNN_BINARY SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/sensitivity_lib.sh"
sensitivity_setup sibling "$@"
S="$SRC/scenarios"
M="$S/memory"
V="$S/vector"
T="$S/simt"
G="$S/gmma"

# All runs first, then the checks.
run s1 "$M/stride1_16banks.json"
run s1b8 "$M/stride1_8banks.json"
run s16 "$M/stride16_16banks.json"
run s3 "$M/stride3_16banks.json"
run sxor "$M/stride16_xor.json"
run scf "$M/shared_conflict_free.json"
run s2w "$M/shared_2way.json"
run s4w "$M/shared_4way.json"
run sbc "$M/shared_broadcast.json"
run swz "$M/swizzle_banks.json"
run swz128 "$M/swizzle_banks_128B.json"
run swz32 "$M/swizzle_banks_32x4.json"
run swz32s "$M/swizzle_banks_32x4_128B.json"
run gop "$M/swizzle_gmma_operands.json"
run gop128 "$M/swizzle_gmma_operands_128B.json"
run dc "$M/dram_chase.json"
run dcr "$M/dram_chase_rows.json"
run dc_nr "$M/dram_chase.json" --set modules.dram.refresh=false
run dcr_nr "$M/dram_chase_rows.json" --set modules.dram.refresh=false
run hv "$M/hierarchy_vecadd.json"
run hs "$M/hierarchy_sliced.json"
run as1 "$V/average_scalar_1bank.json"
run asb "$V/average_scalar_banked.json"
run av "$V/average_vector.json"
run avc "$V/average_vector_chained.json"
run avc3 "$V/average_vector_chained_3ports.json"
run msk "$V/masked.json"
run mdt "$V/masked_density_time.json"
run bc16 "$V/bank_conflicts_stride16.json"
run bc17 "$V/bank_conflicts_stride17.json"
run bc8 "$V/bank_conflicts_8banks.json"
run mmx "$V/mmx_blend.json"
run mmxs "$V/mmx_blend_scalar.json"
run arr "$V/array_vs_vector_array.json"
run vec "$V/array_vs_vector_vector.json"
run w1 "$T/vecadd_1warp.json"
run w32 "$T/vecadd_warps.json"
run tl "$T/two_level.json"
run lrr "$T/two_level_lrr.json"
run dwf "$T/dwf.json"
run dws "$T/dwf_stack.json"
run c100 "$G/calibration_h100_sm.json"
run c100d "$G/calibration_h100_sm_dram.json"
run fp8 "$G/calibration_h100_sm_fp8.json"
run tf32 "$G/calibration_h100_sm_tf32.json"
run l2c "$G/calibration_h800_l2.json"
run drc "$G/calibration_h800_dram.json"
run ws "$S/ptx/gemm_ws.json"
run ws64 "$S/ptx/gemm_ws64.json"

# ---------------------------------------------------------------------------------------
# memory: 64 loads of 8 B, one issued a cycle, banks busy for their latency of 11 cycles.
# 16 banks >= latency 11: one element a cycle, the last issued at 63, back 11 later.
check "stride 1 on 16 banks: 63 + 11 cycles, no conflicts" \
  "$(stat s1 cycles) == 63 + 11 and $(stat s1 top.mem.bank_conflicts) == 0"
# 8 banks: 8 elements issue, the 9th finds bank 0 busy for 11 - 8 = 3 more cycles; 7 times.
check_moves "stride 1, 16 -> 8 banks: 7 conflicts of 11 - 8 cycles" \
  "b[0] - a[0] == 7 * (11 - 8) and (a[1], b[1]) == (0, 7)" \
  "($(stat s1 cycles), $(stat s1 top.mem.bank_conflicts))" "($(stat s1b8 cycles), $(stat s1b8 top.mem.bank_conflicts))"
# Stride 16 words on 16 banks: every element on bank 0 waits the busy time (11) instead of
# one cycle: 63 x (11 - 1) more.
check_moves "stride 1 -> 16 on 16 banks: 63 x (busy 11 - 1) more cycles, all bank stalls" \
  "b[0] - a[0] == 63 * (11 - 1) and (a[1], b[1]) == (0, 63 * (11 - 1))" \
  "($(stat s1 cycles), $(stat s1 top.mem.bank_stall_cycles))" "($(stat s16 cycles), $(stat s16 top.mem.bank_stall_cycles))"
# Stride 3, prime to 16: a bank comes back every 16 elements (>= 11), so nothing waits and
# nothing moves: the expectation is equality (check: check_moves needs a change).
check "stride 1 -> 3 on 16 banks: the same 63 + 11 cycles, no conflicts" \
  "$(stat s3 cycles) == $(stat s1 cycles) == 63 + 11 and $(stat s3 top.mem.bank_conflicts) == 0"
# XOR mapping: element i of stride 16 goes to bank (i mod 16) ^ (i >> 4); a bank comes back
# after 13 elements at the least (>= 11), so the stream runs at the stride-1 rate again.
check_moves "stride 16, word -> xor mapping: the 63 x 10 stall cycles go" \
  "a - b == 63 * (11 - 1) and b == 63 + 11" "$(stat s16 cycles)" "$(stat sxor cycles)"

# Shared memory, 32 banks x 4 B, bank busy 1, latency 29: 64 warp requests, the port takes a
# wavefront a cycle, so each extra wavefront of a k-way conflict is one more cycle.
check "conflict free: 64 wavefronts, 63 + 29 cycles" \
  "$(stat scf top.smem.wavefronts) == 64 and $(stat scf cycles) == 63 + 29"
for k in 2 4; do
  check_moves "shared ${k}-way: ${k} wavefronts a request, 64 x ($k - 1) more cycles" \
    "b[0] == $k * a[0] and b[1] - a[1] == 64 * ($k - 1)" \
    "($(stat scf top.smem.wavefronts), $(stat scf cycles))" "($(stat s${k}w top.smem.wavefronts), $(stat s${k}w cycles))"
done
# Broadcast: the 32 lanes read one word, one access instead of 32, in the same one wavefront.
check_moves "shared broadcast: one word access per request instead of 32" "b * 32 == a" \
  "$(stat scf top.smem.word_accesses)" "$(stat sbc top.smem.word_accesses)"
check "shared broadcast: the same wavefronts and cycles" \
  "$(stat sbc top.smem.wavefronts) == $(stat scf top.smem.wavefronts) and $(stat sbc cycles) == $(stat scf cycles)"

# Swizzle: 8 column reads of an 8 x 8 tile of 16-byte chunks, latency 20. Plain: a column's
# 8 chunks in the same bank(s), 8 wavefronts; 128B swizzle: 8 banks (or 8 x 4), 1 wavefront.
# The port serialises wavefronts: 8 x (8 - 1) cycles saved.
for p in "swz swz128 8x16B" "swz32 swz32s 32x4B"; do
  set -- $p
  check_moves "swizzle on $3 banks: 1 wavefront a column instead of 8, 8 x 7 cycles saved" \
    "a[0] == 8 * b[0] == 64 and a[1] - b[1] == 8 * (8 - 1) and b[1] == 7 + 20" \
    "($(stat $1 top.smem.wavefronts), $(stat $1 cycles))" "($(stat $2 top.smem.wavefronts), $(stat $2 cycles))"
done
# 8 x 16 B -> 32 x 4 B banks: a 16-byte chunk is 4 words on 4 banks instead of 1 word; a
# column still sits in one group of banks (8 wavefronts), so only the word count moves.
check_moves "plain column, 8x16B -> 32x4B banks: 4 word accesses a chunk" "b == 4 * a" \
  "$(stat swz top.smem.word_accesses)" "$(stat swz32 top.smem.word_accesses)"
check "plain column, 8x16B -> 32x4B banks: the same wavefronts and cycles" \
  "$(stat swz32 top.smem.wavefronts) == $(stat swz top.smem.wavefronts) and $(stat swz32 cycles) == $(stat swz cycles)"
# GMMA operand reads: 8 requests of 16 rows' chunks (256 B). Plain: 16 wavefronts each;
# swizzled: 2, the fewest for 256 B on 32 x 4 B. 8 x (16 - 2) cycles saved.
check_moves "GMMA operands, swizzled: 2 wavefronts a request instead of 16, 8 x 14 cycles saved" \
  "(a[0], b[0]) == (8 * 16, 8 * 2) and a[1] - b[1] == 8 * (16 - 2)" \
  "($(stat gop top.smem.wavefronts), $(stat gop cycles))" "($(stat gop128 top.smem.wavefronts), $(stat gop128 cycles))"

# DRAM pointer chase: one load at a time. dram_chase's chain (256 hops, 4 B apart) hits the
# open row except the first access of each of its 4 banks (a miss, tRCD 7 more than the hit's
# 20); dram_chase_rows (31 hops) alternates two rows of one bank, so after its first load (a
# miss) every load is a conflict (tRP + tRCD = 14 more). The core's part of a load is the
# same in both, so the mean load latency moves by exactly the DRAM difference. Refresh (up
# to tRFC 350 wherever the run meets one) is off for that exact check.
check_moves "DRAM chase, open row -> two rows of a bank (no refresh): hit 20, miss +7, conflict +14" \
  "abs((b - a) - ((20 + 7 + 30 * (20 + 14)) / 31 - (4 * (20 + 7) + 252 * 20) / 256)) < 1e-6" \
  "$(stat dc_nr top.sm.global_load_latency)" "$(stat dcr_nr top.sm.global_load_latency)"
# With refresh: each access hits or opens its row (no conflicts in the 1 KB chain); in the
# two-row ring none hits and each opens one. The loads get longer.
check_moves "DRAM chase, open row -> two rows of a bank: the row hits go, longer loads" \
  "a[0] == $(stat dc top.dram.bursts) - $(stat dc top.dram.activates) and b[0] == 0 and b[1] > a[1]" \
  "($(stat dc top.dram.row_hits), $(stat dc top.sm.global_load_latency))" \
  "($(stat dcr top.dram.row_hits), $(stat dcr top.sm.global_load_latency))"
check "DRAM chase rows: an ACT for every burst" "$(stat dcr top.dram.activates) == $(stat dcr top.dram.bursts)"

# vecadd through L1 -> L2 -> DRAM, then with a crossbar (latency 10 each way, 32-byte links)
# to two half-size L2 slices. Every access misses either way (each element is touched once),
# and the XOR fold of the 256-byte units splits the contiguous arrays evenly: each slice
# gets half the lookups and misses, and DRAM the same reads. The crossbar adds 2 x 10 + 1 +
# 4 cycles (a header and 128 bytes of data on its links) to each access; the loads' latency
# stays below the other 31 warps' issue time (31 x 4 cycles), so only the run's end shows it:
# at most a warp's 3 accesses in turn, plus the links' waits.
for sl in l2a l2b; do
  check_moves "L2 -> two slices: $sl gets half the reads and half the misses" "a == (2 * b[0], 2 * b[1])" \
    "($(stat hv top.l2.reads), $(stat hv top.l2.misses))" "($(stat hs top.$sl.reads), $(stat hs top.$sl.misses))"
done
check "L2 -> two slices: the same DRAM reads" "$(stat hs top.dram.reads) == $(stat hv top.dram.reads) == 512"
check_moves "L2 -> crossbar + slices: the run ends later, by at most 3 accesses x 25 + link waits" \
  "0 < b - a <= 3 * (2 * 10 + 1 + 4) + $(stat hs top.xbar.link_wait_cycles)" "$(stat hv cycles)" "$(stat hs cycles)"

# ---------------------------------------------------------------------------------------
# vector: the lecture's machine, 16 banks of latency 11, add 4, shift 1, branch 2.
# One bank: the second load of each iteration waits the bank's 11 cycles instead of starting
# one cycle after the first: 50 iterations x (11 - 1), one conflict each.
check_moves "scalar loop, 1 -> 16 banks: 50 x (11 - 1) cycles saved, the 50 conflicts go" \
  "a[0] - b[0] == 50 * (11 - 1) and (a[1], b[1]) == (50, 0)" \
  "($(stat as1 cycles), $(stat as1 top.mem.bank_conflicts))" "($(stat asb cycles), $(stat asb top.mem.bank_conflicts))"
# VL 50. Flexible chaining: the add and the shift follow the second load element by element
# and leave the critical path (4 + 49 and 1 + 49 cycles); the store still waits for the port.
check_moves "vector, chaining: the add's and the shift's (lat + VL - 1) leave the path" \
  "a - b == (4 + 49) + (1 + 49)" "$(stat av cycles)" "$(stat avc cycles)"
# 2 load + 1 store ports: the second load starts a cycle after the first and the store on the
# first shifted element: 2 + 1 + 11 + 4 + 1 + (11 + 49) instead of 2 + 3 x (11 + 49).
check_moves "vector, chaining, 1 -> 3 ports: 2 + 1 + 11 + 4 + 1 + 60 cycles" \
  "a - b == 2 * (11 + 49) - (1 + 11 + 4 + 1)" "$(stat avc cycles)" "$(stat avc3 cycles)"
# 16 of 64 mask bits set (A[i] != 0 for i = 0, 4, ..., 60). Density time: the multiply takes
# 16 slots instead of 64, and neither it nor the store skips elements (simple: 48 each).
check_moves "masks, simple -> density time: multiply slots 64 -> 16, no masked-off slots" \
  "(a[0], b[0]) == (64, 16) and (a[1], b[1]) == (2 * 48, 0)" \
  "($(stat msk top.vpu.fu_mul_busy_cycles), $(stat msk top.vpu.masked_off_elements))" \
  "($(stat mdt top.vpu.fu_mul_busy_cycles), $(stat mdt top.vpu.masked_off_elements))"
# The store follows the multiply (chained); its written elements B[0, 4, ..., 60] lie on banks
# 0, 4, 8, 12. Simple: slot i at T + i, the last write (i = 60) at T + 60, no bank waits (4
# cycles apart). Density time: the 16 writes come back to back and every 5th waits for its
# bank (11 after the 1st of its group: 7 cycles): the last at T + 3 x 11 + 3.
check_moves "masks, density time: the store ends 60 - (3 x 11 + 3) sooner, 3 bank waits of 11 - 4" \
  "a[0] - b[0] == 60 - (3 * 11 + 3) and (a[1], b[1]) == (0, 3 * (11 - 4))" \
  "($(stat msk cycles), $(stat msk top.mem.bank_stall_cycles))" "($(stat mdt cycles), $(stat mdt top.mem.bank_stall_cycles))"
# 64-element load, then a stride-1 store on the one port. Stride 16 on 16 banks: every
# element waits 11 - 1 cycles for bank 0; stride 17 (prime to 16): none.
check_moves "vector load, stride 16 -> 17: 63 x (11 - 1) cycles saved, no bank stalls" \
  "a[0] - b[0] == 63 * (11 - 1) and (a[1], b[1]) == (63 * (11 - 1), 0)" \
  "($(stat bc16 cycles), $(stat bc16 top.mem.bank_stall_cycles))" "($(stat bc17 cycles), $(stat bc17 top.mem.bank_stall_cycles))"
# bank_conflicts_8banks changes two settings (8 banks, stride 1); both effects follow from
# the banks: the load and the stride-1 store each wait 7 x (11 - 8) on 8 banks, against the
# stride-16 load's 63 x (11 - 1) on 16.
check_moves "vector, stride 16 on 16 banks -> stride 1 on 8: 63 x 10 - 2 x 7 x 3 cycles saved" \
  "a[0] - b[0] == 63 * (11 - 1) - 2 * 7 * (11 - 8) and b[1] == 2 * 7 * (11 - 8)" \
  "($(stat bc16 cycles), $(stat bc16 top.mem.bank_stall_cycles))" "($(stat bc8 cycles), $(stat bc8 top.mem.bank_stall_cycles))"
# Blend: the key colour 0x42 in X's bytes; each such pixel runs 2 more scalar instructions.
# Packed: 5 set-up + 32 words x 8. Scalar: 4 set-up + 32 x (5 + 8 pixels x 8 + 2) + 2 per key
# pixel. Cycles (one instruction at a time; X[i] and Y[i] share a bank, so the second load
# waits 11): packed 4 + 1 + 32 x (11 + 11 + 4 + 11 + 2) (the first X load overlaps the KEY
# load); scalar 4 + 32 x (11 + 11 + 3 + 8 x 13 + 11 + 2) + 2 per key pixel.
K=$(python3 -c "import json, sys; d = json.load(open(sys.argv[1])); x = d['workload']['init'][0]['values']
print(sum(1 for v in x for k in range(8) if (v >> (8 * k)) & 255 == 0x42))" "$V/mmx_blend.json")
check_moves "blend, packed -> scalar ($K key pixels): instructions and cycles" \
  "a == (5 + 32 * 8, 4 + 1 + 32 * (11 + 11 + 4 + 11 + 2)) and b == (4 + 32 * 71 + 2 * $K, 4 + 32 * (11 + 11 + 3 + 8 * 13 + 11 + 2) + 2 * $K)" \
  "($(stat mmx instructions), $(stat mmx cycles))" "($(stat mmxs instructions), $(stat mmxs cycles))"
# VL 4. Array (4 lanes, no chaining): each instruction does all 4 elements in one step,
# 1 + 11 + 4 + 4 + 11 cycles. Vector (1 lane, chained): the same chain, but the last
# element leaves VL - 1 = 3 cycles after the first; the add and multiply units are busy VL
# cycles each instead of 1.
check_moves "array -> vector: VL - 1 more cycles, units busy VL cycles instead of 1" \
  "a[0] == 1 + 11 + 4 + 4 + 11 and b[0] - a[0] == 4 - 1 and a[1:] == (1, 1) and b[1:] == (4, 4)" \
  "($(stat arr cycles), $(stat arr top.vpu.fu_add_busy_cycles), $(stat arr top.vpu.fu_mul_busy_cycles))" \
  "($(stat vec cycles), $(stat vec top.vpu.fu_add_busy_cycles), $(stat vec top.vpu.fu_mul_busy_cycles))"

# ---------------------------------------------------------------------------------------
# simt: 8 lanes, a warp instruction holds them 4 cycles; ALU, multiply, branch latency 4;
# a global access takes 4 + 200 + 4 = 208 cycles (address stage, memory, write-back);
# one instruction in flight per warp.
# vecadd: 256 blocks of one warp, 19 instructions each, 3 of them global accesses.
# One warp: every instruction waits for the previous: 256 x (16 x (4 + 4) + 3 x 208).
# 32 warps (8 rounds of 32 blocks): issue-bound (4 cycles each), round-robin keeps the warps
# in step, so each of the 3 accesses of a round leaves the lanes idle for 208 - 32 x 4
# cycles; then the last exit's 4 cycles.
check_moves "vecadd, 1 -> 32 warps: 256 x 752 -> 4 x 4864 + 8 x 3 x (208 - 128) + 4 cycles" \
  "a == 256 * (16 * (4 + 4) + 3 * 208) and b == 4 * 4864 + 8 * 3 * (208 - 32 * 4) + 4" \
  "$(stat w1 cycles)" "$(stat w32 cycles)"
# Load loop, latency 800 (808 with the address stage and write-back), 32 warps, 16 loads and
# a store each. Loose round-robin keeps them in step: each load leaves the lanes idle for
# 808 - 32 x 4 cycles. Two-level scheduling staggers groups of 8, so the other warps'
# 13 instructions a loop (31 x 13 x 4 cycles > 808) hide every load; the final store's wait
# is the same in both.
check_moves "load loop, two-level -> loose round-robin: 16 x (808 - 32 x 4) more cycles" \
  "b - a == 16 * (808 - 32 * 4)" "$(stat tl cycles)" "$(stat lrr cycles)"
# 32 warps; in the first divergent region (13 instructions: 7 on one path, 6 on the other)
# warps w and w + 1 take complementary lanes, and dynamic warp formation issues each pair's
# half-warps together: 16 pairs x 13 fewer warp instructions and 32 x 13 fewer half-warp
# issues (the second region, 5 instructions, cannot merge). Issue-bound: 4 cycles each.
check_moves "divergence, dwf -> stack alone: 16 x 13 more warp instructions, 4 cycles each" \
  "b[0] - a[0] == 16 * 13 and b[1] - a[1] == 4 * 16 * 13 and (a[2], b[2]) == (32 * 5, 32 * (13 + 5))" \
  "($(stat dwf instructions), $(stat dwf cycles), $(stat dwf top.sm.active_lanes_per_issue)[16])" \
  "($(stat dws instructions), $(stat dws cycles), $(stat dws top.sm.active_lanes_per_issue)[16])"

# ---------------------------------------------------------------------------------------
# gmma: the H100-style SM (0.546 ns clock; DRAM at 1 ns). calibration_h100_sm and its _dram
# sibling run independent microbenchmarks one after the other (shared-load chain, TMA copies,
# then the MMAs after a barrier) and change two of their inputs: the MMA's N (64 -> 256) and
# whether the copies' data is first read into the L2; each figure depends on one of them.
check "h100_sm: the shared-load chain unchanged, 4 + 21 + 4" \
  "$(stat c100 top.sm.shared_load_latency) == $(stat c100d top.sm.shared_load_latency) == 4 + 21 + 4"
# Dependent m64nNk16 MMAs issue every N/2 cycles (2048 FMA a cycle), 16 x 64 x N x 16
# multiply-adds; N = 64 carries a few start-up cycles over its 15 intervals.
check_moves "h100_sm, N 64 -> 256: MMA interval N/2, 4 x the multiply-adds" \
  "b[0] == 256 / 2 and 0 <= a[0] - 64 / 2 < 1 and (a[1], b[1]) == (16 * 64 * 64 * 16, 16 * 64 * 256 * 16)" \
  "($(stat c100 top.gmma.mma_interval), $(stat c100 top.gmma.fmas))" "($(stat c100d top.gmma.mma_interval), $(stat c100d top.gmma.fmas))"
# TMA copies, L2 -> DRAM: each copy's rows (128 B: one 4-burst fill each, two in a 256-byte
# unit on one DRAM bus) miss in the L2 and wait for DRAM instead of the L2 hit (40, against
# its miss latency 2). At least a row hit's service (56 + 7 + 4 x 4 + 56 = 135 ns); at most a
# row conflict, both fills of a unit on one bus and one refresh (56 + 14 + 7 + 8 x 4 + 56 +
# 350 = 515 ns); in SM cycles less 40 - 2, plus up to 1/0.546 + 1 for the clock crossings.
check_moves "h100_sm, copies from DRAM: round trip longer by 135..515 ns less the L2 hit" \
  "135 / 0.546 - 38 <= b - a <= 515 / 0.546 - 38 + 1 / 0.546 + 1" \
  "$(stat c100 top.sm.tma_round_trip)" "$(stat c100d top.sm.tma_round_trip)"
# 16 dependent m64n256 MMAs with 32-byte operand rows either way (K = 32 fp8, K = 8 tf32):
# the same N/2 = 128 cycles each, so K sets the multiply-adds and their rate.
check_moves "fp8 -> tf32: K 32 -> 8: multiply-adds and their rate 64 x 256 x K / 128" \
  "a == (16 * 64 * 256 * 32, 64 * 256 * 32 / 128) and b == (16 * 64 * 256 * 8, 64 * 256 * 8 / 128)" \
  "($(stat fp8 top.gmma.fmas), $(stat fp8 top.gmma.mma_fma_rate))" "($(stat tf32 top.gmma.fmas), $(stat tf32 top.gmma.mma_fma_rate))"
check "fp8 -> tf32: the same MMA interval (N/2) and cycles" \
  "$(stat fp8 top.gmma.mma_interval) == $(stat tf32 top.gmma.mma_interval) == 256 / 2 and $(stat fp8 cycles) == $(stat tf32 cycles)"
# Pointer chases with ld.global.cg: the L2 chase (4096 loads) misses only on its first lap
# (65 lines); the DRAM ring (2048 loads, 20 lines per 16-way set) misses on every load.
# A miss costs the L2 hit path less the hit latency (40) plus the miss latency (2) plus the
# DRAM's own time (its mean_latency, ns at 1 ns a cycle, / 0.546 in SM cycles). The L2
# chase gives the hit path H (its 65 misses removed); the DRAM ring's mean is H - 38 + its
# DRAM mean, plus up to 1/0.546 + 1 cycles of clock crossing.
check_moves "h800 chase, L2 -> DRAM ring: 65 -> 2048 DRAM reads" "a == 65 and b == 2048" \
  "$(stat l2c top.dram.reads)" "$(stat drc top.dram.reads)"
check_moves "h800 chase, L2 -> DRAM ring: the load latency grows by the DRAM's time less the L2 hit" \
  "0 <= b - ((a - 65 / 4096 * ($(stat l2c top.dram.mean_latency) / 0.546 - 38)) - 38 + $(stat drc top.dram.mean_latency) / 0.546) <= 1 / 0.546 + 1" \
  "$(stat l2c top.sm.global_load_latency)" "$(stat drc top.sm.global_load_latency)"

# ---------------------------------------------------------------------------------------
# ptx: the warp-specialised GEMM, 256^3 bf16. gemm_ws: 2 x 2 blocks of 128 x 128 tiles;
# gemm_ws64: 2 x 4 blocks of 64 x 128 (one consumer warpgroup). The same 128 MMAs
# (m64n128k16), but each block fetches its A rows and B columns over all of K: 4 x (128 + 128)
# against 8 x (64 + 128) rows of 256 bf16 through the TMA, 2 copies per K tile of 64. The
# run's length depends on the ring depth and the residency, which change too: no expectation
# on cycles.
check_moves "gemm_ws -> ws64: TMA bytes 4 x (128 + 128) -> 8 x (64 + 128) rows, copies 4 x 4 x 2 -> 8 x 4 x 2" \
  "a == (4 * (128 + 128) * 256 * 2, 4 * 4 * 2) and b == (8 * (64 + 128) * 256 * 2, 8 * 4 * 2)" \
  "($(stat ws top.tma.bytes), $(stat ws top.tma.copies))" "($(stat ws64 top.tma.bytes), $(stat ws64 top.tma.copies))"
check "gemm_ws -> ws64: the same MMAs, multiply-adds and tensor-core time" \
  "$(stat ws top.gmma.wgmma) == $(stat ws64 top.gmma.wgmma) == 128 and $(stat ws top.gmma.fmas) == $(stat ws64 top.gmma.fmas) == 256 ** 3 and $(stat ws top.tc0.busy_cycles) == $(stat ws64 top.tc0.busy_cycles) == 256 ** 3 // 4 // 512"
check "gemm_ws -> ws64: A and B from DRAM once either way" \
  "$(stat ws top.dram.bytes) == $(stat ws64 top.dram.bytes) == 2 * 256 * 256 * 2"

sensitivity_end sibling
