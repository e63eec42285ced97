// A VCD trace sink. Value changes are buffered with their simulated time and written in
// time order at the end, so modules can record changes ahead of the kernel's time (LT
// temporal decoupling). A matching GTKWave view (.gtkw) groups the signals per module and
// shows each in the format it was declared with.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "flynn/common/trace.h"
#include "flynn/platform/spill_sorter.h"

namespace flynn {

class vcd_writer final : public trace_sink {
 public:
  int declare(const std::string& scope, const std::string& name, unsigned width) override;
  void set_format(int handle, trace_format format) override;
  void change(int handle, const sc_core::sc_time& when, std::uint64_t value) override;

  // Changes beyond `changes_in_memory` go to temporary files as sorted runs
  // (spill_sorter): the writer's memory does not grow with the trace.
  explicit vcd_writer(std::size_t changes_in_memory = std::size_t(1) << 20);

  // Writes the VCD (timescale 1 ps; once: the changes are consumed) and the GTKWave view
  // referring to `vcd_name`.
  void write_vcd(std::ostream& os);
  void write_gtkw(std::ostream& os, const std::string& vcd_name) const;
  void add_view(const trace_view& v) override;
  const std::vector<trace_view>& views() const { return views_; }
  // A view: its scopes first, the window from its start to its end, markers at both.
  void write_view_gtkw(std::ostream& os, const std::string& vcd_name, const trace_view& v) const;
  std::size_t signal_count() const { return signals_.size(); }

 private:
  struct signal {
    std::string scope, name;
    unsigned width;
    std::string code;
    trace_format format = trace_format::decimal;
  };
  struct event {
    std::uint64_t time, seq;
    int handle;
    std::uint64_t value;
  };
  struct earlier {
    bool operator()(const event& a, const event& b) const { return a.time != b.time ? a.time < b.time : a.seq < b.seq; }
  };
  std::string full_name(const signal& s) const;
  std::vector<signal> signals_;
  std::vector<bool> active_;  // a signal ever set to a non-zero value
  spill_sorter<event, earlier> events_;
  std::uint64_t seq_ = 0;
  std::vector<trace_view> views_;
  void write_groups(std::ostream& os, const std::vector<std::string>& first) const;
};

}  // namespace flynn
