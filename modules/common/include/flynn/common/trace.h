// Tracing: modules declare a few meaningful signals and record value changes with the
// simulated time at which they happen (which may lie ahead of the kernel's time under
// temporal decoupling). A sink (VCD writer, ...) lives in the platform. Off by default:
// a module without a sink records nothing and pays one pointer test.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

namespace flynn {

// How a viewer shows a multi-bit signal's value (1-bit signals show as bits).
enum class trace_format { decimal, hex };

// A window of a run worth its own waveform view ("one wgmma from start barrier to end"):
// the scopes to show first, and the time span.
struct trace_view {
  std::string name, title;
  std::vector<std::string> scopes;
  sc_core::sc_time start, end;
};

class trace_sink {
 public:
  virtual ~trace_sink() = default;
  // Proposes a view; a sink may ignore it.
  virtual void add_view(const trace_view& v) { (void)v; }

  // Timelines (a sink that keeps them answers true): a slice on a named track of a scope
  // (slices of one track must not overlap), and an async span (spans may overlap; `id`
  // tells them apart within a category).
  virtual bool wants_timeline() const { return false; }
  virtual void slice(const std::string& scope, const std::string& track, const std::string& name,
                     const sc_core::sc_time& start, const sc_core::sc_time& end) {
    (void)scope, (void)track, (void)name, (void)start, (void)end;
  }
  virtual void span(const std::string& scope, const std::string& category, const std::string& name,
                    std::uint64_t id, const sc_core::sc_time& start, const sc_core::sc_time& end) {
    (void)scope, (void)category, (void)name, (void)id, (void)start, (void)end;
  }
  // Declares a signal under a hierarchical scope ("top.mem"); returns its handle.
  virtual int declare(const std::string& scope, const std::string& name, unsigned width) = 0;
  // The display format a declared signal asks for (decimal unless set); a sink may ignore it.
  virtual void set_format(int handle, trace_format format) { (void)handle, (void)format; }
  virtual void change(int handle, const sc_core::sc_time& when, std::uint64_t value) = 0;
};

// One traced signal, cheap to call when tracing is off.
class trace_signal {
 public:
  void attach(trace_sink* sink, const std::string& scope, const std::string& name, unsigned width,
              trace_format format = trace_format::decimal) {
    sink_ = sink;
    handle_ = sink ? sink->declare(scope, name, width) : -1;
    if (sink && format != trace_format::decimal) sink->set_format(handle_, format);
  }
  bool enabled() const { return sink_ != nullptr; }
  trace_sink* sink() const { return sink_; }
  void set(const sc_core::sc_time& when, std::uint64_t value) {
    if (sink_) sink_->change(handle_, when, value);
  }

 private:
  trace_sink* sink_ = nullptr;
  int handle_ = -1;
};

}  // namespace flynn
