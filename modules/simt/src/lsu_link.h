// What the SIMT core answers its load/store unit (simt::lsu_host), forwarded to the core.
#pragma once

#include "core_engine.h"
#include "core_state.h"
#include "load_store_unit.h"
#include "sub_partition.h"

namespace flynn {

class simt_core::engine::lsu_link final : public simt::lsu_host {
 public:
  explicit lsu_link(engine& c) : c_(c) {}
  void lane_fault(const simt::warp& w, unsigned lane, const std::string& what) override { c_.set_fault(w, lane, what); }
  void long_latency(const simt::warp& w) override { c_.scheduler_of(w.slot).long_latency(w.slot); }
  std::uint64_t shared_base(unsigned block) const override { return c_.blocks_[block].shared_base; }
  unsigned block_id(unsigned block) const override { return c_.blocks_[block].id; }
  std::uint64_t access_done(const simt::memory_op& mo) override { return c_.access_done(mo); }
  void shared_quiet(unsigned block, std::uint64_t t) override {
    if (c_.blocks_[block].draining) c_.retire_block(block, t);
  }
  void protocol_fault(const std::string& what) override { c_.fault(what); }

 private:
  engine& c_;
};

}  // namespace flynn
