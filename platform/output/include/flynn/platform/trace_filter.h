// A trace sink in front of another that passes on a window of simulated time and the
// modules whose names match a pattern (--trace-window, --trace-modules).
//
// Window [start, end): a signal change inside it passes; the last change of each signal
// before `start` is passed at `start` when the run ends (finish()), so a waveform starts
// with the values signals had; changes at or after `end` are dropped. Slices and spans that
// overlap the window pass clipped to it. Events may arrive out of time order (modules run
// ahead of simulated time, or write a signal once it is final): what passes depends on
// their times alone.
//
// Pattern: comma-separated globs on the module's full name or its instance name ("top.sm",
// "sm", "top.rf*,tc?"); an empty pattern matches every module.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flynn/common/trace.h"

namespace flynn {

// Whether a module's full name ("top.sm") matches a comma-separated list of globs on it or
// on its instance name ("sm,rf*"); an empty pattern matches every module.
bool matches_module_pattern(const std::string& pattern, const std::string& full_name);

class trace_filter final : public trace_sink {
 public:
  trace_filter(trace_sink& inner, sc_core::sc_time start, sc_core::sc_time end, std::string pattern);

  // Whether a module's scope ("top.sm") matches the pattern.
  bool matches(const std::string& scope) const;
  // Passes each signal's value at the window's start; call once, after the run.
  void finish();

  int declare(const std::string& scope, const std::string& name, unsigned width) override;
  void set_format(int handle, trace_format format) override;
  void change(int handle, const sc_core::sc_time& when, std::uint64_t value) override;
  void add_view(const trace_view& v) override;
  bool wants_timeline() const override { return inner_.wants_timeline(); }
  void slice(const std::string& scope, const std::string& track, const std::string& name,
             const sc_core::sc_time& start, const sc_core::sc_time& end) override;
  void span(const std::string& scope, const std::string& category, const std::string& name, std::uint64_t id,
            const sc_core::sc_time& start, const sc_core::sc_time& end) override;

 private:
  bool clip(sc_core::sc_time& s, sc_core::sc_time& e) const;
  trace_sink& inner_;
  sc_core::sc_time start_, end_;
  std::string pattern_;
  struct signal {
    int inner = -1;  // -1: filtered out
    bool before = false;            // a change before the window was seen
    bool at_start = false;          // a change at the window's start passed
    sc_core::sc_time before_time;   // the latest change before the window (ties: the later call)
    std::uint64_t before_value = 0;
  };
  std::vector<signal> signals_;
};

}  // namespace flynn
