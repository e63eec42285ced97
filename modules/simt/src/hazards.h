// Hazard reports for the SIMT core's asynchronous work: a happens-before checker over the
// synchronisation a kernel performs (see docs/hazards.md for the rules and their PTX ISA
// sources). Each agent that touches a block's shared memory or a warp's registers (a warp's
// generic instruction, a TMA copy, a TMA store, a warpgroup MMA) carries a vector clock;
// the synchronisation moves clocks between agents:
//   - a warp's own instructions are in program order;
//   - mbarrier.arrive releases the warp's clock into the barrier's current phase; a TMA
//     copy that completes bytes on it releases its issue clock and its writes; the
//     completed phase is acquired by mbarrier.wait (try_wait.parity) on it;
//   - wgmma.wait_group N acquires the completion of the warpgroup's committed groups but
//     the newest N (their operand reads and accumulator writes);
//   - tma.wait (cp.async.bulk.wait_group 0) acquires the completion of the warp's stores;
//   - bar.sync joins the clocks of every warp of the block.
// Each shared-memory word keeps its last write and the reads since, and each register of a
// warp the asynchronous write or read in flight on it; an access conflicting with a record
// its agent's clock does not cover is a hazard (read-after-write, write-after-read or
// write-after-write), whether or not the data happened to differ.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "flynn/simt/isa.h"

namespace flynn::simt {

class hazard_checker {
 public:
  explicit hazard_checker(const kernel& k) : kernel_(k) {}

  // A block starts in block slot `slot` (its id, warps and shared bytes), or leaves it.
  void launch(unsigned slot, unsigned block_id, unsigned warps, std::uint64_t shared_bytes);

  // Generic accesses at cycle t by warp `w` of the block in `slot` (pc: the instruction).
  enum class access_kind : std::uint8_t { read, write, atomic };
  // Shared memory: `bytes` at each of `addrs` (block-relative).
  void shared_access(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, access_kind k,
                     const std::uint64_t* addrs, const unsigned* lanes, std::size_t n, unsigned bytes);
  // Registers the warp's generic instruction reads and writes, against the asynchronous
  // accesses in flight on them (wgmma accumulators and .rs fragments).
  void registers(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, const reg_set& reads,
                 const reg_set& writes);
  bool registers_pending(unsigned slot, unsigned w) const;

  // Synchronisation.
  void mbarrier_init(unsigned slot, std::uint64_t addr);
  void mbarrier_arrive(unsigned slot, unsigned w, std::uint64_t addr);  // before the barrier counts it
  void mbarrier_phase_completed(unsigned slot, std::uint64_t addr, unsigned phase, std::uint64_t at);
  void mbarrier_wait(unsigned slot, unsigned w, std::uint64_t addr);    // the phase it waited for completed
  void release_warp(unsigned slot, unsigned w);                           // after its arrivals: a new epoch
  void barrier_arrive(unsigned slot, unsigned w);                         // bar.sync
  void barrier_release(unsigned slot);                                    // every warp arrived
  void wgmma_commit(unsigned slot, unsigned w);
  void wgmma_wait(unsigned slot, unsigned w, unsigned pending);
  void tma_wait(unsigned slot, unsigned w);

  // Asynchronous operations, at their issue.
  void tma_load(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, std::uint64_t dst, std::uint64_t bytes,
                std::uint64_t barrier);
  void tma_store(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, std::uint64_t src, std::uint64_t bytes);
  // One warp's part of a wgmma (a_desc, b_desc: the descriptors; N; A from registers).
  void wgmma(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, std::uint64_t a_desc, std::uint64_t b_desc,
             unsigned n, bool a_regs, unsigned acc_reg, unsigned acc_count, unsigned a_reg);

  // Hazards found: every unordered conflicting access counted; the distinct pairs of
  // instructions (by kind and place) described, the first few in full.
  std::uint64_t hazards() const { return count_; }
  std::uint64_t distinct() const { return distinct_; }
  const std::vector<std::string>& reports() const { return reports_; }
  static constexpr std::size_t max_reports = 8;

 private:
  using clock = std::vector<std::uint32_t>;
  static std::uint32_t at(const clock& c, unsigned i) { return i < c.size() ? c[i] : 0; }
  static void join(clock& into, const clock& c);

  // Who accessed: agent component and epoch (ordered before an agent whose clock has
  // clock[comp] >= epoch), the instruction and cycle, and what it was.
  enum class agent : std::uint8_t { none, warp, tma_load, tma_store, wgmma };
  struct access {
    std::uint32_t epoch = 0;  // 0: no access
    std::uint32_t pc = 0;
    std::uint64_t cycle = 0;
    std::uint16_t comp = 0;
    agent who = agent::none;
    access_kind kind = access_kind::read;
    std::uint8_t warp = 0;
    bool empty() const { return epoch == 0; }
  };
  struct word_state {
    access write, read;
    std::uint32_t more = 0;  // 1 + index of further concurrent reads in more_, 0: none
  };
  struct reg_state {
    access write, read;  // wgmma accumulators written, .rs fragments read
  };
  struct mbar {
    unsigned comp = 0;
    clock accum, completed;  // the current phase's releases; the last completed phase's
    struct load {
      std::uint64_t dst, bytes;
      clock issue;
      access who;
    };
    std::vector<load> loads;  // copies completing on the current phase
  };
  struct pending_wgmma {
    clock c;
    unsigned arrived = 0;
    access who;
    std::uint64_t a_desc = 0, b_desc = 0;
    unsigned n = 0;
    bool a_regs = false;
  };
  struct warp_state {
    clock c;
    std::vector<reg_state> regs;
    unsigned regs_pending = 0;
    std::uint32_t committed = 0, stores = 0, wgmma_seq = 0;
  };
  struct block {
    bool live = false;
    unsigned id = 0, warps = 0;
    std::vector<warp_state> w;
    clock bar_accum;
    std::map<std::uint64_t, mbar> mbars;
    unsigned next_comp = 0;
    std::vector<std::map<std::uint32_t, pending_wgmma>> groups;  // per warpgroup, by issue sequence
    std::vector<word_state> shadow;
    std::vector<std::vector<access>> more;
    std::vector<std::uint32_t> free_more;
  };
  unsigned warp_comp(const block&, unsigned w) const { return w; }
  unsigned store_comp(const block& b, unsigned w) const { return b.warps + w; }
  unsigned group_comp(const block& b, unsigned w) const { return 2 * b.warps + w / 4; }

  static access make_access(agent who, access_kind k, unsigned comp, std::uint32_t epoch, unsigned w, std::uint32_t pc,
                            std::uint64_t t);
  access warp_access(const block& b, unsigned w, std::uint32_t pc, std::uint64_t t) const;  // a's own epoch
  void read_word(block& b, std::uint64_t word, const access& a, const clock& c);
  void write_word(block& b, std::uint64_t word, const access& a, const clock& c);
  struct place {  // a shared-memory word (its byte address) or a warp's register
    bool reg;
    std::uint64_t index;
    unsigned warp;
  };
  void check(block& b, const access& prior, const access& now, const clock& c, const char* what, const place& p);
  std::string describe(const block& b, const access& a) const;
  std::string missing(const block& b, const access& prior) const;
  void record_wgmma_reads(block& b, const pending_wgmma& op);

  const kernel& kernel_;
  std::vector<block> blocks_;
  std::uint64_t count_ = 0, distinct_ = 0;
  std::set<std::tuple<std::string, agent, std::uint32_t, agent, std::uint32_t, bool>> seen_;  // the pairs found
  std::vector<std::string> reports_;
};

}  // namespace flynn::simt
