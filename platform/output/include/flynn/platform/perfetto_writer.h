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
#include <vector>

#include "flynn/common/trace.h"

namespace flynn {

class perfetto_writer final : public trace_sink {
 public:
  int declare(const std::string& scope, const std::string& name, unsigned width) override;
  void change(int handle, const sc_core::sc_time& when, std::uint64_t value) override;
  bool wants_timeline() const override { return true; }
  void slice(const std::string& scope, const std::string& track, const std::string& name, const sc_core::sc_time& start,
             const sc_core::sc_time& end) override;
  void span(const std::string& scope, const std::string& category, const std::string& name, std::uint64_t id,
            const sc_core::sc_time& start, const sc_core::sc_time& end) override;

  void write(std::ostream& os) const;

 private:
  struct event {
    std::uint64_t ps, seq;
    char ph;
    int pid, tid;
    std::string name, cat;
    std::uint64_t dur_ps = 0, id = 0, value = 0;
  };
  int pid_of(const std::string& scope);
  int tid_of(int pid, const std::string& track);
  std::map<std::string, int> pids_;
  std::map<std::pair<int, std::string>, int> tids_;
  struct signal {
    int pid;
    std::string name;
  };
  std::vector<signal> signals_;
  std::vector<event> events_;
  std::uint64_t seq_ = 0;
};

}  // namespace flynn
