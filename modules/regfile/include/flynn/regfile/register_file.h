// Register file of one sub-partition with operand collectors, as a TLM-2.0 target: a
// warp register (32 lanes x 4 B = 128 B) lives in bank (register mod banks); a bank reads
// or writes one warp register per cycle. A read request (an operand collector gathering the
// registers of one operand) takes as many cycles as its busiest bank plus the crossbar; a
// write request (D fragments coming back) goes through a result queue of `result_queue`
// entries that drains into the banks. The register values themselves live with the warps
// (the SIMT core): the request carries pointers to the lanes' registers and the module
// moves the data between them and the payload, at the modelled cycles: a write's values
// land in the registers when the request completes (not at the call, which may come ahead
// of time), and a read returns each register as it is at the cycle its bank reads it (the
// writes landed by then, none later). See docs/modules/register_file.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "flynn/common/module.h"
#include "flynn/common/params.h"
#include "flynn/regfile/register_file_if.h"
#include "flynn/regfile/warp_register.h"

namespace flynn {

// Which warp registers to read or write (TLM_READ_COMMAND / TLM_WRITE_COMMAND); the data
// is register-major: register k's row at offset warp_register_bytes * k.
struct register_access_extension : tlm::tlm_extension<register_access_extension> {
  std::array<std::uint32_t*, warp_lanes> lanes{};  // each lane's registers: register k of lane l
  unsigned register_stride = 1;                     // at lanes[l][k * register_stride]
  std::vector<unsigned> registers;
  tlm::tlm_extension_base* clone() const override { return new register_access_extension(*this); }
  void copy_from(const tlm::tlm_extension_base& e) override {
    *this = static_cast<const register_access_extension&>(e);
  }
};

struct register_file_params : clocked_params {
  property<unsigned> banks{this, {"banks", "",
      "register banks (warp register r lives in bank r mod banks)"}, 4, 1, 64};
  property<unsigned> crossbar_latency{this, {"crossbar_latency", "cycles",
      "bank to operand collector"}, 1, 0, 100};
  property<unsigned> crossbar_bytes_per_cycle{this, {"crossbar_bytes_per_cycle", "B/cycle",
      "bytes the bank-to-collector crossbar carries a cycle; a read request takes whole cycles "
      "of it (ceil(bytes / width)) in the first free cycles from its first register's read (0: "
      "unlimited)"}, 0, 0, 1 << 16};
  property<unsigned> result_queue{this, {"result_queue", "entries",
      "write-backs buffered before the banks"}, 8, 1, 1024};
  ideal_switch ideal{this,
      "an ideal register file for attribution (flynn attribute): every read and write completes "
      "at its arrival cycle, with no bank, crossbar or result-queue limit"};
  std::vector<param_issue> check() const { return {}; }
  // What it allocates by these parameters (see param_footprint).
  param_footprint footprint() const;
};

class register_file : public module, public register_file_if {
 public:
  using params = register_file_params;
  tlm_utils::simple_target_socket<register_file, 32> port;  // the tensor path (GMMA unit)
  sc_core::sc_export<register_file_if> operands;            // the SIMT core's operand collector

  SC_HAS_PROCESS(register_file);
  register_file(const sc_core::sc_module_name& name, const params& p);
  void attach_trace(trace_sink& sink) override;
  bool optional_socket(const std::string& s) const override { return s == "operands"; }
  std::uint64_t read_operands(const unsigned* regs, std::size_t n, std::uint64_t t) override;
  std::uint64_t write_results(const unsigned* regs, std::size_t n, std::uint64_t t) override;

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // The timing both paths share: registers read from `arrive` on (each one's bank slot
  // through `at_slot`, for the values) and when they have crossed; registers written from
  // `arrive` on through the result queue, and when the last is in its bank.
  template <class F>
  std::uint64_t read_timing(const unsigned* regs, std::size_t n, std::uint64_t arrive, F at_slot);
  std::uint64_t write_timing(const unsigned* regs, std::size_t n, std::uint64_t arrive);
  params p_;
  // Requests may arrive out of time order (initiators run ahead under temporal decoupling),
  // so banks keep the set of cycles they are reserved in, and the result queue its entries.
  struct bank_slots {           // reserved cycles as a bitmap from cycle 64 * first_word
    std::deque<std::uint64_t> words;
    std::uint64_t first_word = 0;
  };
  std::uint64_t reserve(unsigned bank, std::uint64_t t) { return reserve(busy_[bank], t); }
  static std::uint64_t reserve(bank_slots& b, std::uint64_t t);
  // Forgets the words of cycles before `before` (tracing: shows them first).
  void forget(bank_slots& b, std::uint64_t before, std::size_t signal);
  // Shows `words` words of b's reserved cycles from its first on signal k (busy 1, free 0).
  void show(const bank_slots& b, std::size_t words, std::size_t signal);
  void finish() override;  // shows the rest of the trace
  void prune(std::uint64_t t);
  std::vector<bank_slots> busy_;
  struct queue_entry {
    std::uint64_t enter, leave;  // a write-back's stay in the result queue: [enter, leave)
  };
  std::vector<queue_entry> queue_;  // sorted by enter; the entries before queue_head_ are forgotten
  std::size_t queue_head_ = 0;
  std::uint64_t horizon_ = 0, longest_ = 1;
  bank_slots crossbar_;  // the cycles the crossbar is reserved in (crossbar_bytes_per_cycle > 0)
  // Trace: bank k's busy cycles on signal k, the crossbar's on signal `banks`; shown once no
  // request can reserve them any more (when pruned, and at the end), so in time order.
  std::vector<trace_signal> busy_sig_;
  std::vector<std::uint8_t> shown_;  // each signal's last value shown
  // Statistics, in the order they are written.
  statistic reads_{stats_, "reads", "registers",
                   "warp registers read (128 B each) by either path: the tensor path's requests (port) and the "
                   "SIMT core's operand collector (operands)"};
  statistic writes_{stats_, "writes", "registers", "warp registers written (128 B each) by either path"};
  statistic operand_reads_{stats_, "operand_reads", "registers",
                           "of reads: source registers of the SIMT core's instructions"};
  statistic result_writes_{stats_, "result_writes", "registers",
                           "of writes: results of the SIMT core's instructions"};
  statistic read_requests_{stats_, "read_requests", "requests",
                           "read requests (one per tensor-path request or core instruction)"};
  statistic write_requests_{stats_, "write_requests", "requests",
                            "write-back requests (one per tensor-path request or core instruction)"};
  statistic conflict_cycles_{stats_, "bank_conflict_cycles", "cycles", "cycles requests waited for a busy bank"};
  statistic crossbar_cycles_{stats_, "crossbar_cycles", "cycles",
                             "cycles the crossbar carried read data (with a width set)"};
  statistic crossbar_wait_{stats_, "crossbar_wait_cycles", "cycles",
                           "cycles read requests waited for the crossbar after their registers were read, summed"};
  statistic queue_full_cycles_{stats_, "result_queue_full_cycles", "cycles",
                               "cycles write-backs waited for a result-queue entry"};
  // Writes made ahead of the cycle they land at: their values wait here, in (cycle, order)
  // order, and go into the registers at that cycle (just before it, so that everything at
  // the cycle sees them).
  struct pending_write {
    std::uint64_t cycle = 0, seq = 0;
    std::array<std::uint32_t*, warp_lanes> lanes{};
    unsigned stride = 1;
    std::vector<unsigned> registers;
    std::vector<unsigned char> data;  // register-major, as the payload's
    // Where register r is among `registers`: position[r - lowest], -1 if not there (a read
    // laid over many pending writes finds its register in each at once).
    unsigned lowest = 0;
    std::vector<std::int32_t> position;
    int find(unsigned r) const { return r >= lowest && r - lowest < position.size() ? position[r - lowest] : -1; }
  };
  std::deque<std::unique_ptr<pending_write>> pending_;  // sorted by (cycle, seq)
  // Landed writes kept for their vectors' storage: the next write reuses it, no allocation.
  std::vector<std::unique_ptr<pending_write>> spare_;
  // The pending writes that name each register number (of any warp), in (cycle, seq) order:
  // a read lays over only these (none: it skips the overlay).
  std::vector<std::vector<const pending_write*>> by_register_;
  void index_pending(const pending_write& w);
  void unindex_pending(const pending_write& w);  // (w: the earliest pending write)
  std::uint64_t write_seq_ = 0;
  sc_core::sc_event land_ev_;
  void land();                          // the writes whose cycle has come (a method)
  void apply(const pending_write& w);   // its values into the registers
  void land_at(const register_access_extension& x, const unsigned char* data, unsigned length, std::uint64_t cycle);
  void schedule_landing();
  // Register k's value as the read of `lanes` at cycle `slot` sees it: the writes pending
  // for that cycle or earlier laid over the registers.
  void overlay(const register_access_extension& x, std::size_t k, std::uint64_t slot, unsigned char* row) const;
  void read_register(const register_access_extension& x, std::size_t k, std::uint64_t slot, unsigned char* data) const;

 public:
  // Lands every pending write now (end of simulation).
  void finish_writes();
};

}  // namespace flynn
