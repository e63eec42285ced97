#include "hazards.h"

#include <algorithm>

#include "flynn/common/format.h"
#include "flynn/gmma/matrix_descriptor.h"
#include "flynn/gmma/wgmma.h"

namespace flynn::simt {

void hazard_checker::join(clock& into, const clock& c) {
  if (into.size() < c.size()) into.resize(c.size(), 0);
  for (std::size_t i = 0; i < c.size(); ++i) into[i] = std::max(into[i], c[i]);
}

void hazard_checker::launch(unsigned slot, unsigned block_id, unsigned warps, std::uint64_t shared_bytes) {
  if (blocks_.size() <= slot) blocks_.resize(slot + 1);
  // Reset in place, as a new block would be: the slot keeps its lists' storage.
  block& b = blocks_[slot];
  b.live = true;
  b.id = block_id;
  b.warps = warps;
  b.next_comp = 2 * warps + (warps + 3) / 4;
  b.w.resize(warps);
  for (unsigned i = 0; i < warps; ++i) {
    warp_state& ws = b.w[i];
    ws.c.assign(b.next_comp, 0);
    ws.c[warp_comp(b, i)] = 1;  // its first epoch
    ws.regs.clear();
    ws.regs_pending = 0;
    ws.committed = ws.stores = ws.wgmma_seq = 0;
  }
  b.bar_accum.clear();
  b.mbars.clear();
  b.groups.resize((warps + 3) / 4);
  for (auto& g : b.groups) g.clear();
  b.shadow.assign((shared_bytes + 3) / 4, word_state{});
  b.more.clear();
  b.free_more.clear();
}

hazard_checker::access hazard_checker::warp_access(const block& b, unsigned w, std::uint32_t pc, std::uint64_t t) const {
  return make_access(agent::warp, access_kind::read, warp_comp(b, w), at(b.w[w].c, warp_comp(b, w)), w, pc, t);
}

hazard_checker::access hazard_checker::make_access(agent who, access_kind k, unsigned comp, std::uint32_t epoch,
                                                   unsigned w, std::uint32_t pc, std::uint64_t t) {
  access a;
  a.epoch = epoch;
  a.pc = pc;
  a.cycle = t;
  a.comp = static_cast<std::uint16_t>(comp);
  a.who = who;
  a.kind = k;
  a.warp = static_cast<std::uint8_t>(w);
  return a;
}

void hazard_checker::shared_access(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, access_kind k,
                                   const std::uint64_t* addrs, const unsigned* lanes, std::size_t n, unsigned bytes) {
  block& b = blocks_[slot];
  const warp_state& ws = b.w[w];
  access a = warp_access(b, w, pc, t);
  a.kind = k;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t first = addrs[lanes[i]] / 4, last = (addrs[lanes[i]] + std::max(bytes, 1u) - 1) / 4;
    for (std::uint64_t word = first; word <= last && word < b.shadow.size(); ++word) {
      if (k == access_kind::read) read_word(b, word, a, ws.c);
      else write_word(b, word, a, ws.c);
    }
  }
}

bool hazard_checker::registers_pending(unsigned slot, unsigned w) const {
  return slot < blocks_.size() && w < blocks_[slot].w.size() && blocks_[slot].w[w].regs_pending != 0;
}

void hazard_checker::registers(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, const reg_set& reads,
                               const reg_set& writes) {
  block& b = blocks_[slot];
  warp_state& ws = b.w[w];
  if (ws.regs_pending == 0) return;
  access a = warp_access(b, w, pc, t);
  auto settle = [&](reg_state& rs) {  // drop the records this warp's clock now covers
    const bool was = !rs.write.empty() || !rs.read.empty();
    if (!rs.write.empty() && at(ws.c, rs.write.comp) >= rs.write.epoch) rs.write = {};
    if (!rs.read.empty() && at(ws.c, rs.read.comp) >= rs.read.epoch) rs.read = {};
    if (was && rs.write.empty() && rs.read.empty()) --ws.regs_pending;
  };
  reads.for_each([&](unsigned r) {
    reg_state& rs = ws.regs[r];
    a.kind = access_kind::read;
    if (!rs.write.empty()) check(b, rs.write, a, ws.c, "read-after-write", place{true, r, w});
    settle(rs);
  });
  writes.for_each([&](unsigned r) {
    reg_state& rs = ws.regs[r];
    a.kind = access_kind::write;
    if (!rs.write.empty()) check(b, rs.write, a, ws.c, "write-after-write", place{true, r, w});
    if (!rs.read.empty()) check(b, rs.read, a, ws.c, "write-after-read", place{true, r, w});
    settle(rs);
  });
}

void hazard_checker::read_word(block& b, std::uint64_t word, const access& a, const clock& c) {
  word_state& s = b.shadow[word];
  if (!s.write.empty() && !(a.kind == access_kind::atomic && s.write.kind == access_kind::atomic))
    check(b, s.write, a, c, "read-after-write", place{false, word * 4, 0});
  // Keep the reads a later write must be ordered after: one inline, the concurrent others
  // apart; a read ordered before this one (or by the same agent) is covered by it.
  if (s.read.empty() || s.read.comp == a.comp || at(c, s.read.comp) >= s.read.epoch) {
    s.read = a;
    return;
  }
  if (s.more == 0) {
    if (b.free_more.empty()) {
      b.more.emplace_back();
      s.more = static_cast<std::uint32_t>(b.more.size());
    } else {
      s.more = b.free_more.back() + 1;
      b.free_more.pop_back();
    }
  }
  auto& list = b.more[s.more - 1];
  list.erase(std::remove_if(list.begin(), list.end(),
                            [&](const access& r) { return r.comp == a.comp || at(c, r.comp) >= r.epoch; }),
             list.end());
  list.push_back(a);
}

void hazard_checker::write_word(block& b, std::uint64_t word, const access& a, const clock& c) {
  word_state& s = b.shadow[word];
  auto unordered = [&](const access& p) { return !p.empty() && at(c, p.comp) < p.epoch; };
  if (unordered(s.write) && !(a.kind == access_kind::atomic && s.write.kind == access_kind::atomic))
    check(b, s.write, a, c, "write-after-write", place{false, word * 4, 0});
  if (unordered(s.read)) check(b, s.read, a, c, "write-after-read", place{false, word * 4, 0});
  if (s.more) {
    for (const access& r : b.more[s.more - 1])
      if (unordered(r)) check(b, r, a, c, "write-after-read", place{false, word * 4, 0});
    b.more[s.more - 1].clear();
    b.free_more.push_back(s.more - 1);
    s.more = 0;
  }
  s.read = {};
  s.write = a;
}

void hazard_checker::check(block& b, const access& prior, const access& now, const clock& c, const char* what,
                           const place& p) {
  if (at(c, prior.comp) >= prior.epoch) return;
  ++count_;
  // A distinct pair: the kind of hazard, each side's agent and instruction, and the kind of
  // place (register or shared word).
  if (!seen_.emplace(std::string(what), prior.who, prior.pc, now.who, now.pc, p.reg).second) return;
  ++distinct_;
  if (reports_.size() >= max_reports) return;
  const std::string where = p.reg ? "register r" + std::to_string(p.index) + " of warp " + std::to_string(p.warp)
                                  : "shared word " + hex(p.index);
  // Told in the order the two were issued (a TMA copy's writes are recorded when its phase
  // completes, after accesses issued later): the missing synchronisation is the earlier one's.
  const bool swap = now.cycle < prior.cycle;
  const access& first = swap ? now : prior;
  const access& second = swap ? prior : now;
  std::string kind = what;
  if (swap && kind == "read-after-write") kind = "write-after-read";
  else if (swap && kind == "write-after-read") kind = "read-after-write";
  reports_.push_back(kind + " on " + where + " of block " + std::to_string(b.id) + ": " + describe(b, first) + ", and " +
                     describe(b, second) + "; nothing orders the second after the first (" + missing(b, first) + ")");
}

std::string hazard_checker::describe(const block& b, const access& a) const {
  const instr* in = a.pc < kernel_.code.size() ? &kernel_.code[a.pc] : nullptr;
  const std::string line = in ? "line " + std::to_string(in->line) + ": " + in->text : "PC " + std::to_string(a.pc);
  const std::string verb = a.kind == access_kind::read ? "reads" : a.kind == access_kind::write ? "writes" : "updates";
  const std::string w = std::to_string(a.warp);
  switch (a.who) {
    case agent::warp:
      return "warp " + w + " " + verb + " it (" + line + ", cycle " + std::to_string(a.cycle) + ")";
    case agent::tma_load:
      return "a tma.load of warp " + w + " writes it (" + line + ", issued at cycle " + std::to_string(a.cycle) + ")";
    case agent::tma_store:
      return "a tma.store of warp " + w + " reads it (" + line + ", issued at cycle " + std::to_string(a.cycle) + ")";
    case agent::wgmma:
      return "a wgmma of warpgroup " + std::to_string(a.warp / 4) + " " + verb + " it (warp " + w + ", " + line +
             ", issued at cycle " + std::to_string(a.cycle) + ", wgmma-group " + std::to_string(a.epoch - 1) + ")";
    case agent::none: break;
  }
  (void)b;
  return "?";
}

std::string hazard_checker::missing(const block& b, const access& prior) const {
  switch (prior.who) {
    case agent::warp:
      return "missing: a bar.sync, or an mbarrier.arrive by warp " + std::to_string(prior.warp) +
             " after its access whose phase the second side waits on";
    case agent::tma_load: {
      std::uint64_t addr = 0;
      for (const auto& [a, m] : b.mbars)
        if (m.comp == prior.comp) addr = a;
      const unsigned phase = prior.epoch - 1;
      return "missing: an mbarrier.wait on the barrier at shared " + hex(addr) + " for the phase the copy completes on (phase " +
             std::to_string(phase) + ", parity " + std::to_string(phase & 1u) + ") before the second access";
    }
    case agent::tma_store:
      return "missing: tma.wait (cp.async.bulk.wait_group) in warp " + std::to_string(prior.warp) +
             " after the store, before the second access";
    case agent::wgmma:
      return "missing: a wgmma.wait_group that leaves wgmma-group " + std::to_string(prior.epoch - 1) +
             " of warpgroup " + std::to_string(prior.warp / 4) + " complete, before the second access";
    case agent::none: break;
  }
  return "?";
}

void hazard_checker::mbarrier_init(unsigned slot, std::uint64_t addr) {
  block& b = blocks_[slot];
  auto it = b.mbars.find(addr);
  if (it == b.mbars.end()) {
    it = b.mbars.emplace(addr, mbar{}).first;
    it->second.comp = b.next_comp++;
  }
  const unsigned comp = it->second.comp;
  it->second = mbar{};
  it->second.comp = comp;
}

void hazard_checker::mbarrier_arrive(unsigned slot, unsigned w, std::uint64_t addr) {
  block& b = blocks_[slot];
  auto it = b.mbars.find(addr);
  if (it != b.mbars.end()) join(it->second.accum, b.w[w].c);
}

void hazard_checker::release_warp(unsigned slot, unsigned w) {
  block& b = blocks_[slot];
  ++b.w[w].c[warp_comp(b, w)];
}

void hazard_checker::mbarrier_phase_completed(unsigned slot, std::uint64_t addr, unsigned phase, std::uint64_t) {
  block& b = blocks_[slot];
  auto it = b.mbars.find(addr);
  if (it == b.mbars.end()) return;
  mbar& m = it->second;
  m.completed = std::move(m.accum);
  m.accum.clear();
  if (m.completed.size() <= m.comp) m.completed.resize(m.comp + 1, 0);
  m.completed[m.comp] = std::max(m.completed[m.comp], phase);  // the copies completing on it
  for (auto& l : m.loads) {
    l.who.epoch = phase;
    join(m.completed, l.issue);
    for (std::uint64_t word = l.dst / 4; word < (l.dst + l.bytes + 3) / 4 && word < b.shadow.size(); ++word)
      write_word(b, word, l.who, l.issue);
  }
  m.loads.clear();
}

void hazard_checker::mbarrier_wait(unsigned slot, unsigned w, std::uint64_t addr) {
  block& b = blocks_[slot];
  auto it = b.mbars.find(addr);
  if (it != b.mbars.end()) join(b.w[w].c, it->second.completed);
}

void hazard_checker::barrier_arrive(unsigned slot, unsigned w) {
  block& b = blocks_[slot];
  join(b.bar_accum, b.w[w].c);
  ++b.w[w].c[warp_comp(b, w)];
}

void hazard_checker::barrier_release(unsigned slot) {
  block& b = blocks_[slot];
  for (auto& ws : b.w) join(ws.c, b.bar_accum);
  b.bar_accum.clear();
}

void hazard_checker::wgmma_commit(unsigned slot, unsigned w) { ++blocks_[slot].w[w].committed; }

void hazard_checker::wgmma_wait(unsigned slot, unsigned w, unsigned pending) {
  block& b = blocks_[slot];
  warp_state& ws = b.w[w];
  if (ws.committed <= pending) return;
  const unsigned g = group_comp(b, w);
  if (ws.c.size() <= g) ws.c.resize(g + 1, 0);
  ws.c[g] = std::max(ws.c[g], ws.committed - pending);
}

void hazard_checker::tma_wait(unsigned slot, unsigned w) {
  block& b = blocks_[slot];
  warp_state& ws = b.w[w];
  const unsigned s = store_comp(b, w);
  if (ws.c.size() <= s) ws.c.resize(s + 1, 0);
  ws.c[s] = std::max(ws.c[s], ws.stores);
}

void hazard_checker::tma_load(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, std::uint64_t dst,
                              std::uint64_t bytes, std::uint64_t barrier) {
  block& b = blocks_[slot];
  auto it = b.mbars.find(barrier);
  if (it == b.mbars.end()) return;
  mbar::load l;
  l.dst = dst;
  l.bytes = bytes;
  l.issue = b.w[w].c;
  l.who = make_access(agent::tma_load, access_kind::write, it->second.comp, 0, w, pc, t);  // (epoch: its phase)
  it->second.loads.push_back(std::move(l));
  release_warp(slot, w);  // the warp's later accesses are not ordered before the copy's writes
}

void hazard_checker::tma_store(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, std::uint64_t src,
                               std::uint64_t bytes) {
  block& b = blocks_[slot];
  warp_state& ws = b.w[w];
  const access a = make_access(agent::tma_store, access_kind::read, store_comp(b, w), ++ws.stores, w, pc, t);
  for (std::uint64_t word = src / 4; word < (src + bytes + 3) / 4 && word < b.shadow.size(); ++word)
    read_word(b, word, a, ws.c);
  release_warp(slot, w);
}

void hazard_checker::wgmma(unsigned slot, unsigned w, std::uint32_t pc, std::uint64_t t, std::uint64_t a_desc,
                           std::uint64_t b_desc, unsigned n, bool a_regs, unsigned acc_reg, unsigned acc_count,
                           unsigned a_reg) {
  block& b = blocks_[slot];
  warp_state& ws = b.w[w];
  // (its epoch: the group it joins at the next commit)
  access a = make_access(agent::wgmma, access_kind::write, group_comp(b, w), ws.committed + 1, w, pc, t);
  if (ws.regs.empty()) ws.regs.resize(num_registers);
  auto note = [&](reg_state& rs, bool write) {
    const bool was = !rs.write.empty() || !rs.read.empty();
    (write ? rs.write : rs.read) = a;
    if (!was) ++ws.regs_pending;
  };
  for (unsigned r = acc_reg; r < acc_reg + acc_count && r < num_registers; ++r) note(ws.regs[r], true);
  a.kind = access_kind::read;
  if (a_regs)
    for (unsigned r = a_reg; r < a_reg + 4 && r < num_registers; ++r) note(ws.regs[r], false);
  // The warpgroup's MMA reads its shared operands once its four warps have issued it, as
  // an agent that knows what each of them knew at its issue.
  auto& ops = b.groups[w / 4];
  pending_wgmma& op = ops[ws.wgmma_seq++];
  join(op.c, ws.c);
  release_warp(slot, w);  // (as for a copy: what the warp does next is not before the MMA's reads)
  if (op.arrived++ == 0) {
    op.who = a;
    op.a_desc = a_desc;
    op.b_desc = b_desc;
    op.n = n;
    op.a_regs = a_regs;
  }
  const unsigned group_warps = std::min(4u, b.warps - 4 * (w / 4));
  if (op.arrived == group_warps) {
    op.who.cycle = t;
    record_wgmma_reads(b, op);
    ops.erase(ws.wgmma_seq - 1);
  }
}

void hazard_checker::record_wgmma_reads(block& b, const pending_wgmma& op) {
  auto operand = [&](std::uint64_t bits, unsigned rows) {
    matrix_descriptor d;
    if (!matrix_descriptor::decode(bits, d).empty()) return;  // (the GMMA unit reports it)
    std::uint64_t last = ~std::uint64_t(0);
    for (unsigned row = 0; row < rows; ++row)
      for (unsigned kb = 0; kb < wgmma_row_bytes; kb += 4) {
        const std::uint64_t word = wgmma_operand_address(d, row, kb) / 4;
        if (word == last || word >= b.shadow.size()) continue;
        last = word;
        read_word(b, word, op.who, op.c);
      }
  };
  if (!op.a_regs) operand(op.a_desc, 64);
  operand(op.b_desc, op.n);
}

}  // namespace flynn::simt
