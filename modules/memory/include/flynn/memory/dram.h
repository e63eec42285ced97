// DRAM timing stage: an HBM-class memory controller and device timing model in front of a
// data array. Requests (TLM-2.0 base protocol, AT or LT) arriving on its ports are mapped to
// pseudo-channels, bank groups, banks, rows and columns, queued per pseudo-channel (a bounded
// queue: a full one holds END_REQ back), and scheduled in arrival order with the device's
// timing constraints (tRCD, tRP, tRAS, tCL, tCWL, tBL, tCCD_S/L, tRRD_S/L, tFAW, tWR, tRTP) and
// periodic all-bank refresh (tREFI, tRFC) under an open- or closed-page policy. When a
// request's last burst moves on the data bus the stage forwards it, unchanged, through its
// `down` socket to the data array (a banked_memory holding the contents), where the data is
// read or written at that cycle; the array's answer goes back up. See docs/modules/dram.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <set>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/memory/timing_stage.h"

namespace flynn {

enum class page_policy { open, closed };

inline constexpr named_choice<page_policy> page_policies[] = {
    {page_policy::open, "open", "a row stays open after an access until a conflict or refresh closes it"},
    {page_policy::closed, "closed", "every access precharges its bank (auto-precharge)"},
};

struct dram_params : clocked_params {
  dram_params() : clocked_params("DRAM clock period (tCK): every cycle count above is in it") {}
  property<unsigned> ports{this, {"ports", "",
      "target sockets port0, port1, ... (one initiator each), granted in arrival order"}, 1, 1, 16};
  // Organisation.
  property<unsigned> channels{this, {"channels", "", "channels"}, 1, 1, 64};
  property<unsigned> pseudo_channels{this, {"pseudo_channels", "",
      "pseudo-channels per channel, each with its own banks, queue and data bus"}, 2, 1, 4};
  property<unsigned> bank_groups{this, {"bank_groups", "",
      "bank groups per pseudo-channel"}, 4, 1, 16};
  property<unsigned> banks{this, {"banks", "", "banks per bank group"}, 4, 1, 16};
  property<unsigned> row_bytes{this, {"row_bytes", "B",
      "row (page) size of a bank, a power of two"}, 1024, 32, 1u << 16};
  property<unsigned> burst_bytes{this, {"burst_bytes", "B",
      "bytes one column access (one burst on the data bus) moves, a power of two"}, 32, 4, 1024};
  property<unsigned> interleave_bytes{this, {"interleave_bytes", "B",
      "consecutive bytes mapped to one pseudo-channel and bank before the next (a power of two, "
      "a multiple of burst_bytes, at most row_bytes): pseudo-channels, then bank groups, then "
      "banks, then the columns of a row"}, 256, 4, 1u << 16};
  // Timing, in DRAM clock cycles (clock_ns each).
  property<unsigned> tRCD{this, {"tRCD", "cycles", "ACT to column command"}, 7, 1, 1000};
  property<unsigned> tRP{this, {"tRP", "cycles", "PRE to ACT of the same bank"}, 7, 1, 1000};
  property<unsigned> tRAS{this, {"tRAS", "cycles", "ACT to PRE of the same bank"}, 17, 1, 1000};
  property<unsigned> tCL{this, {"tCL", "cycles", "read command to its first data"}, 7, 1, 1000};
  property<unsigned> tCWL{this, {"tCWL", "cycles", "write command to its first data"}, 2, 0, 1000};
  property<unsigned> tBL{this, {"tBL", "cycles",
      "a burst on the pseudo-channel's data bus"}, 4, 1, 1000};
  property<unsigned> tCCD_S{this, {"tCCD_S", "cycles",
      "column command to column command, other bank group"}, 1, 1, 1000};
  property<unsigned> tCCD_L{this, {"tCCD_L", "cycles",
      "column command to column command, same bank group"}, 2, 1, 1000};
  property<unsigned> tRRD_S{this, {"tRRD_S", "cycles", "ACT to ACT, other bank group"}, 2, 1, 1000};
  property<unsigned> tRRD_L{this, {"tRRD_L", "cycles", "ACT to ACT, same bank group"}, 3, 1, 1000};
  property<unsigned> tFAW{this, {"tFAW", "cycles",
      "window holding at most four ACTs of a pseudo-channel"}, 15, 1, 10000};
  property<unsigned> tWR{this, {"tWR", "cycles", "end of write data to PRE"}, 8, 0, 1000};
  property<unsigned> tRTP{this, {"tRTP", "cycles", "read command to PRE"}, 3, 0, 1000};
  property<unsigned> tREFI{this, {"tREFI", "cycles",
      "interval between all-bank refreshes of a pseudo-channel"}, 3900, 1, 1u << 30};
  property<unsigned> tRFC{this, {"tRFC", "cycles",
      "an all-bank refresh: the pseudo-channel's banks cannot activate"}, 350, 1, 1u << 20};
  property<bool> refresh{this, {"refresh", "",
      "model periodic refresh (staggered over the pseudo-channels)"}, true};
  property<page_policy> policy{this, {"policy", "",
      "row-buffer policy"}, page_policy::open, page_policies};
  property<unsigned> queue_depth{this, {"queue_depth", "requests",
      "requests a pseudo-channel's queue holds from acceptance to completion; a full queue holds "
      "END_REQ back"}, 32, 1, 4096};
  property<unsigned> frontend_latency{this, {"frontend_latency", "cycles",
      "controller cycles from a request's arrival to its queue"}, 4, 0, 100000};
  property<unsigned> backend_latency{this, {"backend_latency", "cycles",
      "controller cycles from the data array's answer to the response"}, 4, 0, 100000};
  ideal_switch ideal{this,
      "an ideal DRAM for attribution (flynn attribute): every request goes on to the data array "
      "at its arrival cycle and back when it answers, with no DRAM timing (latency, rows, banks, "
      "refresh)"};

  unsigned pseudo_channels_total() const { return channels * pseudo_channels; }
  std::vector<param_issue> check() const;
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

class dram : public timing_stage {
 public:
  using params = dram_params;

  dram(const sc_core::sc_module_name& name, const params& p);
  const params& parameters() const { return p_; }

  // Where an address lives: pseudo-channel (over all channels), bank group, bank, row.
  struct location {
    unsigned pc, bank_group, bank;
    std::uint64_t row;
  };
  location locate(std::uint64_t address) const;

  void attach_trace(trace_sink& sink) override;

 private:
  struct bank_state {
    std::int64_t open_row = -1;
    std::uint64_t act_at = 0, ready_act = 0, ready_pre = 0, ready_col = 0;
  };
  struct channel_state {  // one pseudo-channel
    std::vector<bank_state> banks;
    std::vector<std::uint64_t> group_act, group_col;  // last ACT / column command per bank group, + 1 (0: none)
    std::array<std::uint64_t, 4> acts{};              // the last four ACTs (tFAW), oldest first
    unsigned acts_seen = 0;
    std::uint64_t last_act = 0, last_col = 0, bus_free = 0;
    bool any_act = false, any_col = false;
    std::uint64_t next_refresh = 0;      // the start of the next refresh not applied yet
    std::multiset<std::uint64_t> done;   // completion cycles of the requests in its queue
  };

  void schedule(request& r) override;
  void answered(request& r, std::uint64_t at) override;
  std::uint64_t least_latency(const tlm::tlm_generic_payload& gp) const override {
    const std::uint64_t ends = std::uint64_t(p_.frontend_latency) + p_.backend_latency;
    if (!gp.get_data_length()) return ends;
    return ends + (is_write(gp) ? p_.tCWL : p_.tCL) + p_.tBL;
  }
  std::uint64_t access(unsigned pc, const location& at, bool write, std::uint64_t earliest);
  void apply_refreshes(channel_state& c, std::uint64_t until);

  params p_;
  std::vector<channel_state> channels_;
  std::vector<std::uint64_t> blocks_;  // scratch: a request's bursts
  std::vector<unsigned> used_;         // scratch: its pseudo-channels

  stat_counter latency_sum_;  // read by mean_latency, not written itself
  // Statistics, in the order they are written.
  statistic reads_{stats_, "reads", "requests", "read requests"};
  statistic writes_{stats_, "writes", "requests", "write requests"};
  statistic bytes_{stats_, "bytes", "B", "bytes the requests asked for"};
  statistic bursts_{stats_, "bursts", "bursts", "column accesses (burst_bytes each) on the data buses"};
  statistic_vector pc_bursts_{stats_, "bursts_per_pseudo_channel", "bursts", "column accesses per pseudo-channel"};
  statistic row_hits_{stats_, "row_hits", "bursts", "column accesses to the open row"};
  statistic row_misses_{stats_, "row_misses", "bursts", "column accesses to a bank with no open row (ACT first)"};
  statistic row_conflicts_{stats_, "row_conflicts", "bursts",
                           "column accesses to a bank with another row open (PRE, ACT first)"};
  statistic activates_{stats_, "activates", "commands", "ACT commands"};
  statistic precharges_{stats_, "precharges", "commands", "PRE commands (auto-precharges included)"};
  statistic refreshes_{stats_, "refreshes", "commands", "all-bank refreshes that delayed or preceded an access"};
  statistic queue_wait_{stats_, "queue_wait_cycles", "cycles",
                        "cycles requests waited for room in a full pseudo-channel queue, summed"};
  statistic bus_cycles_{stats_, "bus_busy_cycles", "cycles",
                        "data-bus cycles the bursts occupied, summed over pseudo-channels"};
  stat_formula mean_latency_{stats_, "mean_latency",
                             [this] {
                               const std::uint64_t n = reads_.value() + writes_.value();
                               return n ? double(latency_sum_.value()) / double(n) : 0.0;
                             },
                             "cycles", "mean cycles from a request's arrival to its response"};
  stat_ratio row_hit_rate_{stats_, "row_hit_rate", row_hits_, bursts_, "", "row hits / column accesses"};
  std::vector<trace_signal> act_sig_, burst_sig_;  // per pseudo-channel: the bank of each ACT, bursts done
};

}  // namespace flynn
