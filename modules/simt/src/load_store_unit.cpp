// The SIMT core's load/store unit (see load_store_unit.h). Global: one transaction per
// segment touched, issued one per cycle; shared: one multi-lane request (the shared memory
// serves it in as many wavefronts as its worst bank). The requests go out as AT
// transactions: the memory grants them at their arrival cycles, in simulated-time order
// with every other initiator's, and a load's data reach the registers when its response
// comes. The issue loop synchronises with simulated time through horizon() before it
// decides anything a response could change.
#include "load_store_unit.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include "coalescer.h"
#include "flynn/common/debug_flag.h"
#include "flynn/common/format.h"
#include "flynn/common/module.h"
#include "hazards.h"

namespace flynn::simt {

load_store_unit::load_store_unit(const module& owner, lsu_host& host, const config& c,
                                 tlm::tlm_initiator_socket<32>& global, tlm::tlm_initiator_socket<32>& shared)
    : m_(owner), host_(host), c_(c), socket_{&global, &shared}, segment_(c.segment_bytes) {
  addr_.resize(warp::lane_slots);
  groups_ = std::make_unique<lane_groups>();
}

// A run stopped by a fault leaves requests in flight; their payloads must not take the
// extensions (members of the request records) with them when the pool goes.
load_store_unit::~load_store_unit() {
  for (auto& rq : requests_) {
    if (!rq->gp) continue;
    if (rq->gp->get_extension<lanes_extension>() == &rq->ext) rq->gp->clear_extension(&rq->ext);
    if (rq->gp->get_extension<atomic_extension>() == &rq->ax) rq->gp->clear_extension(&rq->ax);
    if (rq->gp->get_extension<request_tag>() == &rq->tag) rq->gp->clear_extension(&rq->tag);
    if (rq->gp->get_extension<hierarchy_extension>() == &rq->hx) rq->gp->clear_extension(&rq->hx);
  }
}

void load_store_unit::start(std::uint64_t shared_bytes, unsigned block_slots) {
  shared_bytes_ = shared_bytes;
  shared_in_flight_.assign(block_slots, 0);
}

std::uint64_t load_store_unit::execute(warp& w, const instr& in, std::uint32_t mask, std::uint64_t t,
                                       std::uint64_t occupancy) {
  const bool atomic = in.code == op::atom;  // a write of operands that brings back old elements
  const std::uint32_t active = w.guarded(mask & first_lanes(c_.warp_size), in, c_.warp_size);
  if (!active) return t + c_.lat_alu;
  if (!addresses_ok(w, in, active)) return t;
  if (hazards_ && in.sp == space::shared)
    hazards_->shared_access(w.block, w.index, w.stack.back().pc, t,
                            atomic               ? hazard_checker::access_kind::atomic
                            : in.code == op::st ? hazard_checker::access_kind::write
                                                 : hazard_checker::access_kind::read,
                            addr_.data(), lanes_.data(), lanes_.size(), in.width);
  group_lanes(w, in, atomic);
  const lane_groups& groups = *groups_;
  if (m_.debugging(debug_mem))
    m_.debug(debug_mem, t,
             "warp " + std::to_string(w.slot) + " " + source_text(in) + ": " + std::to_string(lanes_.size()) +
                 " lanes of " + std::to_string(in.width) + " B from " + hex(addr_[lanes_.front()]) + ", " +
                 std::to_string(groups.size()) +
                 (in.sp == space::global ? " transactions (coalesced)" : " requests"));
  memory_op* const mo = new_op(w, in, t, occupancy);
  for (std::size_t g = 0; g < groups.size(); ++g) send_group(w, in, mo, g, t);
  if (transactions_.enabled()) transactions_.set(m_.to_time(t), groups.size());
  return unknown_cycle;
}

// The executing lanes (lanes_) and every lane's address [ra + imm] (addr_, 32-bit
// arithmetic, a register row at a time); then the executing lanes' checks, the first
// failing lane reported as the warp's fault (false).
bool load_store_unit::addresses_ok(warp& w, const instr& in, std::uint32_t active) {
  std::vector<unsigned>& lanes = lanes_;
  lanes.resize(set_bits(active));
  if (active == 0xffffffffu) {
    for (unsigned l = 0; l < warp::lane_slots; ++l) lanes[l] = l;
  } else {
    std::size_t i = 0;
    for (std::uint32_t m = active; m; m &= m - 1) lanes[i++] = static_cast<unsigned>(__builtin_ctz(m));
  }
  std::vector<std::uint64_t>& addr = addr_;
  const std::uint64_t space_bytes = in.sp == space::shared ? shared_bytes_ : UINT64_MAX;
  const auto offset = static_cast<std::uint32_t>(in.imm);
  std::uint32_t a32[warp::lane_slots];
  if (in.abs_addr) {
    std::fill_n(a32, warp::lane_slots, offset);
  } else if (in.addr64) {  // a 64-bit address in ra:ra+1: above 4 GiB is outside every memory
    const std::uint32_t *lo = w.row(in.ra), *hi = w.row(in.ra + 1u);
    for (unsigned l = 0; l < warp::lane_slots; ++l) {
      const std::uint64_t a = ((std::uint64_t(hi[l]) << 32) | lo[l]) + static_cast<std::uint64_t>(in.imm);
      a32[l] = static_cast<std::uint32_t>(a);
      if ((a >> 32) && (active & lane_bit[l])) {
        host_.lane_fault(w, l, std::string(in.sp == space::shared ? "shared" : "global") + " address " + hex(a) +
                                   " beyond the 32-bit address space");
        return false;
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
                 (0u - static_cast<std::uint32_t>((active & lane_bit[l]) != 0));
    bad = failing != 0;
  }
  for (unsigned l : lanes) {
    if (!bad) break;
    if (addr[l] % in.width) {
      host_.lane_fault(w, l, std::string("misaligned ") + (in.sp == space::shared ? "shared" : "global") +
                                 " address " + hex(addr[l]));
      return false;
    }
    if (addr[l] + in.width > space_bytes) {
      host_.lane_fault(w, l, "out-of-range shared address " + hex(addr[l]));
      return false;
    }
  }
  return true;
}

// The executing lanes in requests (groups_): by segment for global, all together for
// shared; an atomic's lanes naming distinct elements go together, the k-th lane to name an
// element in the k-th request, so that the memory applies them one after the other.
void load_store_unit::group_lanes(const warp& w, const instr& in, bool atomic) {
  lane_groups& groups = *groups_;
  const std::vector<unsigned>& lanes = lanes_;
  if (atomic) {
    groups.lanes.clear();
    groups.begin.assign({0});
    groups.stride = 0;
    std::vector<unsigned>& left = pending_;
    left = lanes;
    while (!left.empty()) {
      std::vector<unsigned> next;
      for (const unsigned l : left) {
        bool repeated = false;
        for (std::size_t i = groups.begin.back(); i < groups.lanes.size() && !repeated; ++i)
          repeated = addr_[groups.lanes[i]] == addr_[l];
        if (repeated) next.push_back(l);
        else groups.lanes.push_back(l);
      }
      groups.begin.push_back(groups.lanes.size());
      left.swap(next);
    }
  } else if (in.sp == space::global) {
    coalesce(lanes, addr_, segment_, groups);
  } else {
    groups.lanes = lanes;
    groups.begin.assign({0, lanes.size()});
    groups.stride = 0;
  }
  if (in.sp == space::global) {
    ++n_.global_requests;
    n_.global_transactions += groups.size();
    host_.long_latency(w);
  } else {
    ++n_.shared_requests;
  }
}

// The record of warp w's access, reused from an answered one where it can be.
memory_op* load_store_unit::new_op(warp& w, const instr& in, std::uint64_t t, std::uint64_t occupancy) {
  if (free_ops_.empty()) {
    ops_.push_back(std::make_unique<memory_op>());
    free_ops_.push_back(ops_.back().get());
  }
  memory_op* const mo = free_ops_.back();
  free_ops_.pop_back();
  *mo = memory_op{};
  mo->w = &w;
  mo->generation = w.generation;
  mo->block = w.block;
  mo->pc = w.stack.back().pc;
  mo->warp_index = w.index;
  mo->in = &in;
  mo->issued = t;
  mo->done = t;
  mo->groups_left = static_cast<unsigned>(groups_->size());
  mo->slot_bound = t + occupancy + c_.lat_lsu;
  return mo;
}

// Group g of the access as one request, queued for its arrival cycle (lat_lsu + g cycles
// after issue).
void load_store_unit::send_group(warp& w, const instr& in, memory_op* mo, std::size_t g, std::uint64_t t) {
  const lane_groups& groups = *groups_;
  const bool store = in.code == op::st;
  const bool atomic = in.code == op::atom;
  const unsigned words = in.width / 4;
  const std::uint64_t base = in.sp == space::shared ? host_.shared_base(w.block) : 0;
  const unsigned port = in.sp == space::shared ? 1 : 0;
  const unsigned* ls = groups.group(g);
  const std::size_t n = groups.group_size(g);
  tlm::tlm_generic_payload* gp = pool_.allocate();
  if (free_requests_.empty()) {
    requests_.push_back(std::make_unique<memory_request>());
    free_requests_.push_back(requests_.back().get());
  }
  memory_request& rq = *free_requests_.back();
  free_requests_.pop_back();
  rq.op = mo;
  rq.gp = gp;
  rq.group = static_cast<unsigned>(g);
  rq.port = port;
  rq.lanes.assign(ls, ls + n);
  rq.tag.rq = &rq;
  rq.bound = response_bound_extension{};
  rq.due = t + c_.lat_lsu + g;
  unsigned char* buf = pool_.buffer(gp);
  // Lanes in order at consecutive addresses (the usual coalesced access) make one plain
  // burst of n * width bytes: the same words as the lanes would name. Any other group names
  // each lane's address in a lanes extension.
  rq.plain = !atomic && groups.stride == in.width;
  if (!rq.plain && !atomic && ls[n - 1] - ls[0] == n - 1) {
    const std::uint64_t* a = &addr_[ls[0]];
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
      ext.address[k] = base + addr_[ls[k]];
      if (store || atomic) put(k, ls[k]);
    }
  }
  gp->set_command(store ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  gp->set_address(base + addr_[ls[0]]);
  gp->set_data_ptr(buf);
  gp->set_data_length(static_cast<unsigned>(n * in.width));
  gp->set_streaming_width(static_cast<unsigned>(n * in.width));
  gp->set_byte_enable_ptr(nullptr);
  gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  if (!rq.plain) gp->set_extension(&rq.ext);
  if (atomic) {
    rq.ax.op = static_cast<atomic_extension::operation>(in.sub);
    rq.ax.type = in.ty == type::f32   ? atomic_extension::element::f32
                 : in.ty == type::s32 ? atomic_extension::element::s32
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
  if (port == 1) ++shared_in_flight_[w.block];  // a block's shared memory outlives it until they land
  ++in_flight_;
  out_[port].push(gp, m_.to_time(rq.due));  // the cycle it reaches the memory
  rq.use = ++uses_;
  bounds_.push({rq.due, rq.use, &rq});
  horizon_known_ = false;
}

// Sends the port's queued requests, one at a time (a new BEGIN_REQ only once the previous
// request's END_REQ has come), each for its arrival cycle or at once when that has passed.
void load_store_unit::send_requests(unsigned port) {
  horizon_known_ = false;
  out_[port].send(
      *socket_[port], end_resp_owed_,
      [this](tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) { complete(gp, at); },
      [this] { host_.protocol_fault("BEGIN_REQ answered TLM_UPDATED with a phase other than END_REQ or BEGIN_RESP"); });
}

tlm::tlm_sync_enum load_store_unit::transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                                 sc_core::sc_time& delay) {
  const memory_request* rq = request_of(gp);
  if (!rq) {
    host_.protocol_fault(std::string("nb_transport_bw ") + ph.get_name() + " for a transaction not in flight");
    return tlm::TLM_COMPLETED;
  }
  const unsigned port = rq->port;
  const sc_core::sc_time at = flynn::sim_now() + delay;
  if (ph == tlm::END_REQ) {
    out_[port].end_req(&gp, at);
    send_requests(port);
    return tlm::TLM_ACCEPTED;
  }
  if (ph == tlm::BEGIN_RESP) {
    if (out_[port].end_req(&gp, at))  // an implicit END_REQ
      send_requests(port);
    complete(&gp, at);
    return tlm::TLM_COMPLETED;  // no END_RESP needed
  }
  host_.protocol_fault(std::string("nb_transport_bw: unexpected phase ") + ph.get_name());
  return tlm::TLM_COMPLETED;
}

// One request's response: the data it carried are final. When the access's last request
// is in, the core learns of it (lsu_host::access_done).
void load_store_unit::complete(tlm::tlm_generic_payload* gp, const sc_core::sc_time& at) {
  horizon_known_ = false;
  memory_request& rq = *request_of(*gp);
  memory_op& mo = *rq.op;
  rq.op = nullptr;
  const instr& in = *mo.in;
  const bool store = in.code == op::st;
  mo.done = std::max(mo.done, m_.to_cycles_ceil(at));
  std::string why;
  if (gp->get_response_status() != tlm::TLM_OK_RESPONSE)
    why = gp->get_response_string();
  else if (!rq.plain && !rq.ext.acknowledged)  // a target that moved data_length bytes from one address
    why = "the memory ignored the lanes extension (the load/store unit needs a lanes-aware memory such as banked_memory)";
  else if (in.code == op::atom && !rq.ax.acknowledged)  // a target that wrote the operands
    why = "the memory ignored the atomic extension (atomics need a memory that applies them, such as banked_memory)";
  if (!why.empty() && (mo.failure.empty() || rq.group < mo.failed_group)) {  // the first failing group's
    const bool sh = in.sp == space::shared;
    mo.failed_group = rq.group;
    mo.failed_lane = rq.lanes.front();
    mo.failure = std::string(sh ? "shared" : "global") + " access at " +
                 hex(gp->get_address() - (sh ? host_.shared_base(mo.block) : 0)) + ": " + why;
  }
  if (m_.debugging(debug_mem))
    m_.debug(debug_mem, m_.to_cycles_ceil(at),
             "warp " + std::to_string(mo.w->slot) + " " + source_text(in) + ": " + std::to_string(rq.lanes.size()) +
                 " lanes at " + hex(gp->get_address()) + (store ? " written" : " back") +
                 (why.empty() ? "" : " with an error: " + why));
  if (!store && mo.w->generation == mo.generation && mo.failure.empty()) land(rq, mo, *gp);
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
  --in_flight_;
  const bool quiet = port == 1 && --shared_in_flight_[mo.block] == 0;
  if (--mo.groups_left == 0) {
    const std::uint64_t done = host_.access_done(mo);
    if (mo.failure.empty() && !store && in.code != op::atom) {
      auto& [count, sum] = in.sp == space::shared ? n_.shared_load_latency : n_.global_load_latency;
      ++count;
      sum += done - mo.issued;
    }
  }
  if (quiet) host_.shared_quiet(mo.block, m_.to_cycles_ceil(at));
  if (mo.groups_left == 0) free_ops_.push_back(&mo);
  // The issue loop learns of it at once: with lat_lsu > 0 no decision it takes before the
  // horizon depends on a response of the current cycle, so it need not wait for the other
  // responses of this delta cycle. With lat_lsu 0 it decides a delta cycle after the
  // responses due now (the settle in the core's sync_for_memory), so it wakes then.
  if (c_.lat_lsu) news_.notify();
  else news_.notify(sc_core::SC_ZERO_TIME);
}

// A load's data from the response into the warp's registers (zero- or sign-extended when
// narrower than a register).
void load_store_unit::land(const memory_request& rq, const memory_op& mo, const tlm::tlm_generic_payload& gp) {
  const instr& in = *mo.in;
  warp& w = *mo.w;
  const unsigned words = in.width / 4;
  const unsigned char* buf = gp.get_data_ptr();
  const std::size_t n = rq.lanes.size();
  if (in.width < 4) {
    for (std::size_t k = 0; k < n; ++k) {
      std::uint32_t x = 0;
      std::memcpy(&x, &buf[k * in.width], in.width);
      if (in.sign) x = in.width == 1 ? std::uint32_t(std::int32_t(std::int8_t(x))) : std::uint32_t(std::int32_t(std::int16_t(x)));
      w.reg(rq.lanes[k], in.rd) = x;
    }
  } else if (words == 1 && rq.lanes[n - 1] - rq.lanes[0] == n - 1) {  // consecutive lanes: one row
    std::memcpy(&w.reg(rq.lanes[0], in.rd), buf, n * 4);
  } else {
    for (std::size_t k = 0; k < n; ++k)
      for (unsigned wd = 0; wd < words; ++wd)
        std::memcpy(&w.reg(rq.lanes[k], in.rd + wd), &buf[k * in.width + wd * 4], 4);
  }
}

// The request record of a payload the unit has in flight (nullptr for any other payload).
memory_request* load_store_unit::request_of(tlm::tlm_generic_payload& gp) const {
  const auto* tag = gp.get_extension<request_tag>();
  return tag && tag->rq && tag->rq->gp == &gp ? tag->rq : nullptr;
}

// A response to an access in flight comes no earlier than the request's due cycle (it is
// sent then or later, and answered no earlier than it is sent), nor before the memory's
// promise when it made one (response_bound_extension); its data are in the registers
// lat_lsu cycles later. Otherwise a response may come at the current cycle.
std::uint64_t load_store_unit::horizon(std::uint64_t now, bool settled) {
  if (horizon_known_) return horizon_;
  horizon_known_ = true;
  std::uint64_t earliest = std::numeric_limits<std::uint64_t>::max();
  while (!bounds_.empty()) {
    const response_bound top = bounds_.top();
    const memory_request& rq = *top.rq;
    if (!rq.gp || rq.use != top.use) {  // answered since
      bounds_.pop();
      continue;
    }
    const std::uint64_t bound = rq.bound.promised ? std::max(rq.due, m_.to_cycles(rq.bound.earliest)) : rq.due;
    if (bound > top.cycle) {  // promised since: its place is further back
      bounds_.pop();
      bounds_.push({bound, top.use, top.rq});
      continue;
    }
    earliest = bound;
    break;
  }
  if (earliest > now && earliest != std::numeric_limits<std::uint64_t>::max())
    return horizon_ = earliest + c_.lat_lsu;  // nothing can come before then
  return horizon_ = now + c_.lat_lsu + (c_.lat_lsu == 0 && settled ? 1 : 0);
}

// A request still waiting for END_REQ first, as the ones behind it have not been sent.
std::string load_store_unit::report() const {
  const memory_request* stuck = nullptr;
  const auto rank = [this](const memory_request& r) {
    return std::make_tuple(out_[r.port].open() == r.gp ? 0 : 1, r.op->issued, r.port, r.group);
  };
  for (const auto& rq : requests_)
    if (rq->gp && (!stuck || rank(*rq) < rank(*stuck))) stuck = rq.get();
  if (!stuck) return {};
  const memory_op& mo = *stuck->op;
  const bool sent = !out_[stuck->port].queued(stuck->gp);
  return "; block " + std::to_string(host_.block_id(mo.block)) + " warp " + std::to_string(mo.warp_index) +
         " at PC " + std::to_string(mo.pc) + " (line " + std::to_string(mo.in->line) + ": " + mo.in->text +
         ") issued at cycle " + std::to_string(mo.issued) + " has not completed: " +
         (mo.in->code == op::st ? "WRITE " : "READ ") + hex(stuck->gp->get_address()) + " through " +
         socket_[stuck->port]->name() +
         (!sent                                    ? " not sent yet"
          : out_[stuck->port].open() == stuck->gp ? ": END_REQ never came"
                                                   : ": no response came") +
         " (" + std::to_string(in_flight_) + " requests in flight)";
}

}  // namespace flynn::simt
