// A trace sink that writes a Chrome / Perfetto trace-event JSON timeline (trace.json, open it
// at ui.perfetto.dev or chrome://tracing): one process per module, its tracks as threads with
// their slices ("X" events), async spans ("b"/"e" pairs: memory transactions, TMA copies,
// GMMA phases, which may overlap), and every traced signal as a counter ("C" events).
// Timestamps are microseconds of simulated time.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <unordered_map>
#include <vector>

#include "flynn/common/trace.h"
#include "flynn/platform/spill_sorter.h"

namespace flynn {

class perfetto_writer final : public trace_sink {
 public:
  // Events beyond `events_in_memory` go to temporary files as sorted runs (spill_sorter):
  // the writer's memory does not grow with the trace.
  explicit perfetto_writer(std::size_t events_in_memory = std::size_t(1) << 18);
  int declare(const std::string& scope, const std::string& name, unsigned width) override;
  void change(int handle, const sc_core::sc_time& when, std::uint64_t value) override;
  bool wants_timeline() const override { return true; }
  void slice(const std::string& scope, const std::string& track, const std::string& name, const sc_core::sc_time& start,
             const sc_core::sc_time& end) override;
  void span(const std::string& scope, const std::string& category, const std::string& name, std::uint64_t id,
            const sc_core::sc_time& start, const sc_core::sc_time& end) override;

  // Writes the timeline (once: the events are consumed).
  void write(std::ostream& os);
  std::size_t events() const { return events_.size(); }
  std::size_t spilled_runs() const { return events_.runs(); }

 private:
  struct event {
    std::uint64_t ps, seq, dur_ps, id, value;
    std::int32_t pid, tid;
    std::uint32_t name, cat;  // indices into names_
    char ph;
  };
  // Time order; at one time, ends before begins, then by module and track, then in the
  // module's recording order (so the file does not depend on the order in which processes
  // ran, or how far a module ran ahead of simulated time).
  struct later_first {
    const std::vector<std::string>* names;
    bool operator()(const event& a, const event& b) const;
  };
  int pid_of(const std::string& scope);
  int tid_of(int pid, const std::string& track);
  std::uint32_t name_of(const std::string& n);
  std::map<std::string, int> pids_;
  std::map<std::pair<int, std::string>, int> tids_;
  struct signal {
    int pid;
    std::uint32_t name;
  };
  std::vector<signal> signals_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_index_;
  spill_sorter<event, later_first> events_;
  std::uint64_t seq_ = 0;
};

}  // namespace flynn
