// The vector unit's in-flight state, shared by its issue stage (vector_unit.cpp) and its
// element-group engine and memory ports (element_groups.cpp). Private to modules/vector/src.
#pragma once

#include <deque>
#include <memory>
#include <vector>

#include "flynn/tlm/at_request_queue.h"
#include "flynn/tlm/lanes_extension.h"
#include "flynn/tlm/owner_extension.h"
#include "flynn/tlm/no_dmi_initiator.h"
#include "flynn/vector/vector_unit.h"

namespace flynn {

// The function units' names (in fu order), in their statistics and trace signals.
inline constexpr const char* fu_names[] = {"add", "logic", "shift", "mul", "div", "fadd", "fmul", "cmp"};

// A memory port: an AT initiator socket with one request phase open at a time; element
// groups wait in `requests_out` for their turn (each sent for its own cycle).
struct vector_unit::mem_port final : no_dmi_initiator {
  enum kind_t { shared, load, store } kind;
  vector_unit* owner;
  initiator_socket socket;
  time_cell free_at = std::make_shared<std::uint64_t>(0);  // the last memory instruction's release
  std::deque<time_cell> waiting;
  at_request_queue requests_out;
  stats_group stats;  // nested in the unit's as "port<i>_"
  statistic elements{stats, "elements", "elements", "elements transferred"};
  statistic busy_cycles{stats, "busy_cycles", "cycles", "cycles held by a memory instruction"};
  stat_counter instructions;
  trace_signal busy, element;
  mem_port(vector_unit* o, const char* n, kind_t k) : kind(k), owner(o), socket(n) { socket.bind(*this); }
  bool can(bool store_op) const { return kind == shared || (store_op ? kind == store : kind == load); }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& ph,
                                     sc_core::sc_time& delay) override {
    return owner->nb_transport_bw(*this, gp, ph, delay);
  }
};

// A dispatched instruction whose element groups are still to start or to complete.
struct vector_unit::flight {
  std::uint64_t seq = 0;
  vec::instr in;
  vec::scalar_operands ops;
  std::uint64_t vs = 1, vl = 0;   // VS and VL at issue
  bool memory = false, store = false, indexed = false, cmp = false, vb = false;
  unsigned lat = 0;
  unit_state* us = nullptr;
  mem_port* port = nullptr;
  std::uint64_t t = 0;             // issue cycle
  std::vector<unsigned> elems;     // active elements (VL and, for density-time, the mask)
  std::vector<bool> mask;          // masked: VM as it was at issue
  unsigned src_a = 0, src_b = 0;   // arithmetic: ra, rb; memory: data (store) and index
  bool chain_a = false, chain_b = false;
  std::shared_ptr<write_times> wa, wb;  // the writes the sources read (whole-vector times)
  std::shared_ptr<write_times> dst;     // this instruction's write (none: compare, store)
  time_cell prev_free;             // when the unit or port is free for this instruction
  time_cell own_free;              // when this instruction frees it
  time_cell first_start_cell;      // its first group's start (for queue admission)
  unsigned reads = 0, writes = 0;  // registers, bit v; bit 8: VM
  std::size_t next = 0;            // first element (index into elems) of the next group
  bool first_group = true, groups_done = false, finished = false;
  std::uint64_t prev = 0, first_done = 0, last_done = 0, first_start = 0, vm_done = 0;
  unsigned responses_due = 0;
  const std::uint64_t* waits_on = nullptr;  // a time the next group waits for, unknown when noted
  std::uint64_t next_element() const { return groups_done ? unknown : elems[next]; }
};

// One element group's memory request.
struct vector_unit::request {
  flight* f = nullptr;
  std::size_t begin = 0, end = 0;       // elements elems[begin, end)
  std::uint64_t start = 0;              // its cycle
  bool first = false;                   // the instruction's first group
  std::vector<std::uint64_t> prev_ready;  // load: each lane's element ready before (write order)
  tlm::tlm_generic_payload* gp = nullptr;  // while in flight
  lanes_extension ext;
  owner_extension owner;  // on gp: this record
};

}  // namespace flynn
