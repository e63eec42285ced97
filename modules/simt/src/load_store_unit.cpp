// The SIMT core's load/store unit: a warp's global access coalesced into one request per
// segment, a shared access as one multi-lane request, both sent as AT transactions for
// their arrival cycles; responses land the loaded data in the registers and tell the
// scoreboard when. The issue loop synchronises with simulated time through
// sync_for_memory and wait_memory before it decides anything a response could change.
#include <algorithm>
#include <cstring>
#include <limits>
#include <tuple>

#include "coalescer.h"
#include "hazards.h"
#include "core_state.h"
#include "flynn/common/bits.h"
#include "flynn/common/format.h"
#include "flynn/simt/simt_core.h"
#include "flynn/tlm/begin_request.h"

namespace flynn {

using simt::op;

// Global: one transaction per segment touched, issued one per cycle; shared: one
// multi-lane request (the shared memory serves it in as many wavefronts as its worst bank).
// The requests go out as AT transactions: the memory grants them at their arrival cycles,
// in simulated-time order with every other initiator's, and a load's data reach the
// registers when its response comes (see complete_memory). Returns the completion cycle
// when it is known at issue (no lane takes part, or a fault), else unknown_cycle.
std::uint64_t simt_core::execute_memory(warp& w, const simt::instr& in, std::uint32_t mask, std::uint64_t t,
                                        std::uint64_t occupancy) {
  const bool store = in.code == op::st;
  const bool atomic = in.code == op::atom;  // a write of operands that brings back old elements
  const unsigned words = in.width / 4;
  const std::uint32_t active = w.guarded(mask & first_lanes(p_.warp_size), in, p_.warp_size);
  if (!active) return t + p_.lat_alu;
  std::vector<unsigned>& lanes = lsu_lanes_;
  lanes.resize(set_bits(active));
  if (active == 0xffffffffu) {
    for (unsigned l = 0; l < warp::lane_slots; ++l) lanes[l] = l;
  } else {
    std::size_t i = 0;
    for (std::uint32_t m = active; m; m &= m - 1) lanes[i++] = static_cast<unsigned>(__builtin_ctz(m));
  }
  // Every lane's address [ra + imm] (32-bit arithmetic), a register row at a time; then the
  // executing lanes' checks, the first failing lane reported.
  std::vector<std::uint64_t>& addr = lsu_addr_;
  const std::uint64_t space_bytes = in.sp == simt::space::shared ? launch_.shared_bytes : UINT64_MAX;
  const auto offset = static_cast<std::uint32_t>(in.imm);
  std::uint32_t a32[warp::lane_slots];
  if (in.abs_addr) {
    std::fill_n(a32, warp::lane_slots, offset);
  } else if (in.addr64) {  // a 64-bit address in ra:ra+1: above 4 GiB is outside every memory
    const std::uint32_t *lo = w.row(in.ra), *hi = w.row(in.ra + 1u);
    for (unsigned l = 0; l < warp::lane_slots; ++l) {
      const std::uint64_t a = ((std::uint64_t(hi[l]) << 32) | lo[l]) + static_cast<std::uint64_t>(in.imm);
      a32[l] = static_cast<std::uint32_t>(a);
      if ((a >> 32) && (active & simt::lane_bit[l])) {
        set_fault(w, l, std::string(in.sp == simt::space::shared ? "shared" : "global") + " address " + hex(a) +
                            " beyond the 32-bit address space");
        return t;
      }
    }
  } else {
    const std::uint32_t* base_row = w.row(in.ra);
    for (unsigned l = 0; l < warp::lane_slots; ++l) a32[l] = base_row[l] + offset;
  }
  for (unsigned l = 0; l < warp::lane_slots; ++l) addr[l] = a32[l];
  // A lane fails when misaligned or when its access ends past space_bytes (above `highest`).
  bool bad = (in.width & (in.width - 1)) != 0 || space_bytes < in.width;  // (else looked at lane by lane)
  if (!bad) {
    const std::uint64_t highest = space_bytes - in.width;
    const auto limit = static_cast<std::uint32_t>(std::min<std::uint64_t>(highest, UINT32_MAX));
    const std::uint32_t align = in.width - 1;
    std::uint32_t failing = 0;
    for (unsigned l = 0; l < warp::lane_slots; ++l)
      failing |= ((a32[l] & align) | static_cast<std::uint32_t>(a32[l] > limit)) &
                 (0u - static_cast<std::uint32_t>((active & simt::lane_bit[l]) != 0));
    bad = failing != 0;
  }
  for (unsigned l : lanes) {
    if (!bad) break;
    if (addr[l] % in.width) {
      set_fault(w, l, std::string("misaligned ") + (in.sp == simt::space::shared ? "shared" : "global") + " address " + hex(addr[l]));
      return t;
    }
    if (addr[l] + in.width > space_bytes) {
      set_fault(w, l, "out-of-range shared address " + hex(addr[l]));
      return t;
    }
  }
  if (hazards_ && in.sp == simt::space::shared)
    hazards_->shared_access(w.block, w.index, w.stack.back().pc, t,
                            atomic  ? simt::hazard_checker::access_kind::atomic
                            : store ? simt::hazard_checker::access_kind::write
                                    : simt::hazard_checker::access_kind::read,
                            addr.data(), lanes.data(), lanes.size(), in.width);
  // Group lanes into requests: by segment for global, all together for shared.
  simt::lane_groups& groups = *lsu_groups_;
  if (atomic) {
    // Atomics: lanes naming distinct elements go together; the k-th lane to name an element
    // goes in the k-th request, so that the memory applies them one after the other.
    groups.lanes.clear();
    groups.begin.assign({0});
    groups.stride = 0;
    std::vector<unsigned>& left = lsu_pending_;
    left = lanes;
    while (!left.empty()) {
      std::vector<unsigned> next;
      for (const unsigned l : left) {
        bool repeated = false;
        for (std::size_t i = groups.begin.back(); i < groups.lanes.size() && !repeated; ++i)
          repeated = addr[groups.lanes[i]] == addr[l];
        if (repeated) next.push_back(l);
        else groups.lanes.push_back(l);
      }
      groups.begin.push_back(groups.lanes.size());
      left.swap(next);
    }
    if (in.sp == simt::space::global) {
      ++global_requests_;
      global_transactions_ += groups.size();
      scheduler_of(w.slot).long_latency(w.slot);
    } else {
      ++shared_requests_;
    }
  } else if (in.sp == simt::space::global) {
    simt::coalesce(lanes, addr, segment_, groups);
    ++global_requests_;
    global_transactions_ += groups.size();
    scheduler_of(w.slot).long_latency(w.slot);
  } else {
    groups.lanes = lanes;
    groups.begin.assign({0, lanes.size()});
    groups.stride = 0;
    ++shared_requests_;
  }
  if (debugging(debug_mem))
    debug(debug_mem, t,
          "warp " + std::to_string(w.slot) + " " + simt::source_text(in) +
              ": " + std::to_string(lanes.size()) + " lanes of " + std::to_string(in.width) + " B from " +
              hex(addr[lanes.front()]) + ", " + std::to_string(groups.size()) +
              (in.sp == simt::space::global ? " transactions (coalesced)" : " requests"));
  const std::uint64_t base = in.sp == simt::space::shared ? blocks_[w.block].shared_base : 0;
  const unsigned port = in.sp == simt::space::shared ? 1 : 0;
  if (free_ops_.empty()) {
    ops_.push_back(std::make_unique<simt::memory_op>());
    free_ops_.push_back(ops_.back().get());
  }
  simt::memory_op* const mo = free_ops_.back();
  free_ops_.pop_back();
  *mo = simt::memory_op{};
  mo->w = &w;
  mo->generation = w.generation;
  mo->block = w.block;
  mo->pc = w.stack.back().pc;
  mo->warp_index = w.index;
  mo->in = &in;
  mo->issued = t;
  mo->done = t;
  mo->groups_left = static_cast<unsigned>(groups.size());
  mo->slot_bound = t + occupancy + p_.lat_lsu;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const unsigned* ls = groups.group(g);
    const std::size_t n = groups.group_size(g);
    tlm::tlm_generic_payload* gp = pool_.allocate();
    if (free_requests_.empty()) {
      requests_.push_back(std::make_unique<simt::memory_request>());
      free_requests_.push_back(requests_.back().get());
    }
    simt::memory_request& rq = *free_requests_.back();
    free_requests_.pop_back();
    rq.op = mo;
    rq.gp = gp;
    rq.group = static_cast<unsigned>(g);
    rq.port = port;
    rq.lanes.assign(ls, ls + n);
    rq.tag.rq = &rq;
    rq.bound = response_bound_extension{};
    rq.due = t + p_.lat_lsu + g;
    unsigned char* buf = pool_.buffer(gp);
    // Lanes in order at consecutive addresses (the usual coalesced access) make one plain
    // burst of n * width bytes: the same words as the lanes would name. Any other group
    // names each lane's address in a lanes extension.
    rq.plain = !atomic && groups.stride == in.width;
    if (!rq.plain && !atomic && ls[n - 1] - ls[0] == n - 1) {
      const std::uint64_t* a = &addr[ls[0]];
      std::uint64_t off = 0;
      for (std::size_t k = 1; k < n; ++k) off |= (a[k] - a[k - 1]) ^ in.width;  // (addresses below 2^32)
      rq.plain = off == 0;
    }
    // A store's data of lane `lane` at element k: its registers, or for a narrow access the
    // low bytes of one.
    const auto put = [&](std::size_t k, unsigned lane) {
      if (atomic) rq.ax.operand[k] = in.b_imm ? in.imm_b : w.reg(lane, in.rb);  // (in the extension)
      else if (in.width < 4) std::memcpy(&buf[k * in.width], &w.reg(lane, in.rb), in.width);
      else
        for (unsigned wd = 0; wd < words; ++wd) std::memcpy(&buf[k * in.width + wd * 4], &w.reg(lane, in.rb + wd), 4);
    };
    if (rq.plain) {  // (never an atomic)
      if (store && in.width == 4) std::memcpy(buf, &w.reg(ls[0], in.rb), n * 4);
      else if (store)
        for (std::size_t k = 0; k < n; ++k) put(k, ls[k]);
    } else {
      rq.ext = lanes_extension{};
      lanes_extension& ext = rq.ext;
      ext.lanes = static_cast<unsigned>(n);
      ext.lane_bytes = in.width;
      ext.active_mask = first_lanes(ext.lanes);
      if (atomic) rq.ax = atomic_extension{};
      for (std::size_t k = 0; k < n; ++k) {
        ext.address[k] = base + addr[ls[k]];
        if (store || atomic) put(k, ls[k]);
      }
    }
    gp->set_command(store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp->set_address(base + addr[ls[0]]);
    gp->set_data_ptr(buf);
    gp->set_data_length(static_cast<unsigned>(n * in.width));
    gp->set_streaming_width(static_cast<unsigned>(n * in.width));
    gp->set_byte_enable_ptr(nullptr);
    gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (!rq.plain) gp->set_extension(&rq.ext);
    if (atomic) {
      rq.ax.op = static_cast<atomic_extension::operation>(in.sub);
      rq.ax.type = in.ty == simt::type::f32 ? atomic_extension::element::f32
                   : in.ty == simt::type::s32 ? atomic_extension::element::s32
                                              : atomic_extension::element::u32;
      gp->set_extension(&rq.ax);
    }
    gp->set_extension(&rq.tag);
    gp->set_extension(&rq.bound);
    if (in.cg) {
      rq.hx = hierarchy_extension{};
      rq.hx.cache_global = true;
      gp->set_extension(&rq.hx);
    }
    if (port == 1) ++blocks_[w.block].memory_in_flight;  // a block's shared memory outlives it until they land
    ++memory_in_flight_;
    requests_out_[port].push(gp, to_time(rq.due));  // the cycle it reaches the memory
    rq.use = ++request_uses_;
    response_bounds_.push({rq.due, rq.use, &rq});
    horizon_known_ = false;
  }
  if (lsu_transactions_.enabled()) lsu_transactions_.set(to_time(t), groups.size());
  return unknown_cycle;
}

// Sends the port's queued requests, one at a time (a new BEGIN_REQ only once the previous
// request's END_REQ has come), each for its arrival cycle or at once when that has passed.
void simt_core::send_requests(unsigned port) {
  horizon_known_ = false;
  requests_out_[port].send(
      port == 1 ? shared : global, end_resp_owed_,
      [this](tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) { complete_memory(gp, at); },
      [this] { fault("BEGIN_REQ answered TLM_UPDATED with a phase other than END_REQ or BEGIN_RESP"); });
}

tlm::tlm_sync_enum simt_core::nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                              sc_core::sc_time& delay) {
  const simt::memory_request* rq = request_of(gp);
  if (!rq) {
    fault(std::string("nb_transport_bw ") + ph.get_name() + " for a transaction not in flight");
    return tlm::TLM_COMPLETED;
  }
  const unsigned port = rq->port;
  const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
  if (ph == tlm::END_REQ) {
    requests_out_[port].end_req(&gp, at);
    send_requests(port);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (requests_out_[port].end_req(&gp, at))  // an implicit END_REQ
      send_requests(port);
    complete_memory(&gp, at);
    return tlm::TLM_COMPLETED;  // no END_RESP needed
  }
  fault(std::string("nb_transport_bw: unexpected phase ") + ph.get_name());
  return tlm::TLM_COMPLETED;
}

// One request's response: the data it carried are final. When the instruction's last
// request is in, the loaded values land in the registers and the scoreboard learns when.
void simt_core::complete_memory(tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) {
  horizon_known_ = false;
  simt::memory_request& rq = *request_of(*gp);
  simt::memory_op& mo = *rq.op;
  rq.op = nullptr;
  const simt::instr& in = *mo.in;
  const bool store = in.code == op::st;
  mo.done = std::max(mo.done, to_cycles_ceil(at));
  std::string why;
  if (gp->get_response_status() != tlm::TLM_OK_RESPONSE)
    why = gp->get_response_string();
  else if (!rq.plain && !rq.ext.acknowledged)  // a target that moved data_length bytes from one address
    why = "the memory ignored the lanes extension (the load/store unit needs a lanes-aware memory such as banked_memory)";
  else if (in.code == op::atom && !rq.ax.acknowledged)  // a target that wrote the operands
    why = "the memory ignored the atomic extension (atomics need a memory that applies them, such as banked_memory)";
  if (!why.empty() && (mo.failure.empty() || rq.group < mo.failed_group)) {  // the first failing group's
    const bool sh = in.sp == simt::space::shared;
    mo.failed_group = rq.group;
    mo.failed_lane = rq.lanes.front();
    mo.failure = std::string(sh ? "shared" : "global") + " access at " +
                 hex(gp->get_address() - (sh ? blocks_[mo.block].shared_base : 0)) + ": " + why;
  }
  warp& w = *mo.w;
  if (debugging(debug_mem))
    debug(debug_mem, to_cycles_ceil(at),
          "warp " + std::to_string(w.slot) + " " + simt::source_text(in) +
              ": " + std::to_string(rq.lanes.size()) + " lanes at " + hex(gp->get_address()) +
              (store ? " written" : " back") +
              (why.empty() ? "" : " with an error: " + why));
  const bool same_warp = w.generation == mo.generation;
  if (!store && same_warp && mo.failure.empty()) {
    const unsigned words = in.width / 4;
    const unsigned char* buf = gp->get_data_ptr();
    const std::size_t n = rq.lanes.size();
    if (in.width < 4) {  // zero- or sign-extended into the register
      for (std::size_t k = 0; k < n; ++k) {
        std::uint32_t x = 0;
        std::memcpy(&x, &buf[k * in.width], in.width);
        if (in.sign) x = in.width == 1 ? std::uint32_t(std::int32_t(std::int8_t(x))) : std::uint32_t(std::int32_t(std::int16_t(x)));
        w.reg(rq.lanes[k], in.rd) = x;
      }
    } else if (words == 1 && rq.lanes[n - 1] - rq.lanes[0] == n - 1)  // consecutive lanes: one row
      std::memcpy(&w.reg(rq.lanes[0], in.rd), buf, n * 4);
    else
      for (std::size_t k = 0; k < n; ++k)
        for (unsigned wd = 0; wd < words; ++wd)
          std::memcpy(&w.reg(rq.lanes[k], in.rd + wd), &buf[k * in.width + wd * 4], 4);
  }
  const unsigned port = rq.port;
  gp->clear_extension(&rq.ext);
  if (in.code == op::atom) gp->clear_extension(&rq.ax);
  gp->clear_extension(&rq.tag);
  gp->clear_extension(&rq.bound);
  if (in.cg) gp->clear_extension(&rq.hx);
  gp->release();
  rq.gp = nullptr;
  rq.tag.rq = nullptr;
  free_requests_.push_back(&rq);  // (not reused before this returns)
  --memory_in_flight_;
  block_slot& bs = blocks_[mo.block];
  if (port == 1) --bs.memory_in_flight;
  if (--mo.groups_left == 0) {
    // (a load's data is written back through the sub-partition's register file, where bound)
    const std::uint64_t done = store || !same_warp || !w.live ? mo.done + p_.lat_lsu
                                                              : write_back(w, decoded_[mo.pc].writes, mo.done + p_.lat_lsu);
    if (!mo.failure.empty()) {
      set_fault(mo.block, mo.warp_index, mo.failed_lane, mo.pc, mo.failure);
    } else {
      if (!store && in.code != op::atom) {
        auto& [n, sum] = in.sp == simt::space::shared ? shared_load_latency_ : global_load_latency_;
        ++n;
        sum += done - mo.issued;
      }
      if (same_warp && w.live) {
        touch(w);
        if (!store) decoded_[mo.pc].writes.for_each([&](unsigned x) { w.reg_ready[x] = done; });
        if (p_.inflight > 1) {
          // The instruction's in-flight slot: a load's until it completes, a store's until it
          // leaves the load/store unit (posted write) or completes, whichever is first.
          const std::uint64_t held = store ? mo.slot_bound : unknown_cycle;
          const auto slot = std::find(w.inflight.begin(), w.inflight.end(), held);
          if (slot != w.inflight.end()) *slot = store ? std::min(done, mo.slot_bound) : done;
        } else {
          w.ready_at = done;
        }
        if (!warp_state_.empty()) warp_state_[static_cast<std::size_t>(w.slot)].set(to_time(done), 1);
      }
    }
    end_ = std::max(end_, done);
  }
  if (port == 1 && bs.memory_in_flight == 0 && bs.draining) retire_block(mo.block, to_cycles_ceil(at));
  if (mo.groups_left == 0) free_ops_.push_back(&mo);
  // The issue loop learns of it at once: with lat_lsu > 0 no decision it takes before the
  // horizon depends on a response of the current cycle, so it need not wait for the other
  // responses of this delta cycle. With lat_lsu 0 it decides a delta cycle after the
  // responses due now (the settle in sync_for_memory), so it wakes then.
  if (p_.lat_lsu) memory_news_.notify();
  else memory_news_.notify(sc_core::SC_ZERO_TIME);
}

// The request record of a payload the unit has in flight (nullptr for any other payload).
simt::memory_request* simt_core::request_of(tlm::tlm_generic_payload& gp) const {
  const auto* tag = gp.get_extension<simt::request_tag>();
  return tag && tag->rq && tag->rq->gp == &gp ? tag->rq : nullptr;
}

// The first cycle at which a memory access not answered yet could make its warp ready: its
// response comes at the current cycle at the earliest (or at earliest_response, when that is
// later), and the data are in the registers lat_lsu cycles later.
// A response to an access in flight comes no earlier than the request's due cycle (it is
// sent then or later, and answered no earlier than it is sent), nor before the memory's
// promise when it made one (response_bound_extension).
// The answer holds until the thread next resumes, a request is sent or answered, or the
// memory is called (it may promise then): each of these forgets it (horizon_known_).
std::uint64_t simt_core::memory_horizon() {
  if (horizon_known_) return horizon_;
  horizon_known_ = true;
  std::uint64_t earliest = std::numeric_limits<std::uint64_t>::max();
  while (!response_bounds_.empty()) {
    const response_bound top = response_bounds_.top();
    const simt::memory_request& rq = *top.rq;
    if (!rq.gp || rq.use != top.use) {  // answered since
      response_bounds_.pop();
      continue;
    }
    const std::uint64_t bound = rq.bound.promised ? std::max(rq.due, to_cycles(rq.bound.earliest)) : rq.due;
    if (bound > top.cycle) {  // promised since: its place is further back
      response_bounds_.pop();
      response_bounds_.push({bound, top.use, top.rq});
      continue;
    }
    earliest = bound;
    break;
  }
  if (earliest > now_cycle_ && earliest != std::numeric_limits<std::uint64_t>::max())
    return horizon_ = earliest + p_.lat_lsu;  // nothing can come before then
  return horizon_ = now_cycle_ + p_.lat_lsu + (p_.lat_lsu == 0 && settled_at_ == now_ ? 1 : 0);
}

// Decisions at cycle t depend on the memory accesses in flight only once t reaches the
// horizon: until then the core may run ahead of simulated time, after it waits for the
// responses. (With lat_lsu 0 it decides at the cycle itself, a delta cycle after the
// responses due then have come.)
void simt_core::sync_for_memory(std::uint64_t t) {
  while (memory_in_flight_ && t >= memory_horizon()) {
    const sc_core::sc_time now = now_;
    if (p_.lat_lsu == 0 && to_time(t) == now) {
      pause(sc_core::SC_ZERO_TIME);
      settled_at_ = now;
      continue;
    }
    pause(to_time(p_.lat_lsu ? t + 1 - p_.lat_lsu : t) - now, memory_news_);
  }
}

// Waits until the accesses in flight could no longer come before `next` (unknown_cycle:
// none known), or for a response or other news.
void simt_core::wait_memory(std::uint64_t next) {
  sc_core::sc_event_or_list news;
  news |= memory_news_;
  if (gmma.size() && gmma->in_progress()) news |= gmma->progress_event();
  if (tma.size() && tma->in_progress()) news |= tma->progress_event();
  const sc_core::sc_time now = now_;
  if (next == unknown_cycle) {
    pause(news);
    return;
  }
  const std::uint64_t target = p_.lat_lsu ? next + 1 - p_.lat_lsu : next;
  if (to_time(target) > now) {
    pause(to_time(target) - now, news);
  } else {  // lat_lsu 0, `next` is now: the responses due now come within a delta cycle
    pause(sc_core::SC_ZERO_TIME);
    settled_at_ = now;
  }
}

// The oldest memory access never answered, for a stall report ("" when none): a request
// still waiting for END_REQ first, as the ones behind it have not been sent.
std::string simt_core::memory_report() const {
  const simt::memory_request* stuck = nullptr;
  const auto rank = [this](const simt::memory_request& r) {
    return std::make_tuple(requests_out_[r.port].open() == r.gp ? 0 : 1, r.op->issued, r.port, r.group);
  };
  for (const auto& rq : requests_)
    if (rq->gp && (!stuck || rank(*rq) < rank(*stuck))) stuck = rq.get();
  if (!stuck) return {};
  const simt::memory_op& mo = *stuck->op;
  const bool sent = !requests_out_[stuck->port].queued(stuck->gp);
  return "; block " + std::to_string(blocks_[mo.block].id) + " warp " + std::to_string(mo.warp_index) + " at PC " +
         std::to_string(mo.pc) + " (line " + std::to_string(mo.in->line) + ": " + mo.in->text + ") issued at cycle " +
         std::to_string(mo.issued) + " has not completed: " + (mo.in->code == op::st ? "WRITE " : "READ ") +
         hex(stuck->gp->get_address()) + " through " + (stuck->port ? shared.name() : global.name()) +
         (!sent                                           ? " not sent yet"
          : requests_out_[stuck->port].open() == stuck->gp ? ": END_REQ never came"
                                                           : ": no response came") +
         " (" + std::to_string(memory_in_flight_) + " requests in flight)";
}

}  // namespace flynn
