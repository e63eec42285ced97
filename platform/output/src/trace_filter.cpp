#include "flynn/platform/trace_filter.h"

#include <fnmatch.h>

#include <sstream>

namespace flynn {

bool matches_module_pattern(const std::string& pattern, const std::string& full_name) {
  if (pattern.empty()) return true;
  const std::string base = full_name.substr(full_name.find_last_of('.') + 1);
  std::stringstream ss(pattern);
  std::string g;
  while (std::getline(ss, g, ','))
    if (!g.empty() && (fnmatch(g.c_str(), full_name.c_str(), 0) == 0 || fnmatch(g.c_str(), base.c_str(), 0) == 0))
      return true;
  return false;
}

trace_filter::trace_filter(trace_sink& inner, sc_core::sc_time start, sc_core::sc_time end, std::string pattern)
    : inner_(inner), start_(start), end_(end), pattern_(std::move(pattern)) {}

bool trace_filter::matches(const std::string& scope) const { return matches_module_pattern(pattern_, scope); }

int trace_filter::declare(const std::string& scope, const std::string& name, unsigned width) {
  signal s;
  if (matches(scope)) s.inner = inner_.declare(scope, name, width);
  signals_.push_back(s);
  return static_cast<int>(signals_.size()) - 1;
}

void trace_filter::set_format(int handle, trace_format format) {
  const signal& s = signals_[static_cast<std::size_t>(handle)];
  if (s.inner >= 0) inner_.set_format(s.inner, format);
}

void trace_filter::change(int handle, const sc_core::sc_time& when, std::uint64_t value) {
  signal& s = signals_[static_cast<std::size_t>(handle)];
  if (s.inner < 0 || when >= end_) return;
  if (when >= start_) {
    s.at_start = s.at_start || when == start_;
    inner_.change(s.inner, when, value);
    return;
  }
  if (!s.before || when >= s.before_time) {  // (a later call at the same time wins, as in a waveform)
    s.before = true;
    s.before_time = when;
    s.before_value = value;
  }
}

void trace_filter::finish() {
  if (start_ == sc_core::SC_ZERO_TIME) return;
  for (auto& s : signals_)
    if (s.inner >= 0 && s.before && !s.at_start && start_ < end_) inner_.change(s.inner, start_, s.before_value);
}

void trace_filter::add_view(const trace_view& v) {
  // A view outside the window shows nothing: it is left out.
  if (v.end < start_ || v.start >= end_) return;
  trace_view w = v;
  if (w.start < start_) w.start = start_;
  if (w.end > end_) w.end = end_;
  inner_.add_view(w);
}

bool trace_filter::clip(sc_core::sc_time& s, sc_core::sc_time& e) const {
  if (e < start_ || s >= end_ || (e == start_ && s < start_)) return false;
  if (s < start_) s = start_;
  if (e > end_) e = end_;
  return true;
}

void trace_filter::slice(const std::string& scope, const std::string& track, const std::string& name,
                         const sc_core::sc_time& start, const sc_core::sc_time& end) {
  sc_core::sc_time s = start, e = end;
  if (matches(scope) && clip(s, e)) inner_.slice(scope, track, name, s, e);
}

void trace_filter::span(const std::string& scope, const std::string& category, const std::string& name,
                        std::uint64_t id, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  sc_core::sc_time s = start, e = end;
  if (matches(scope) && clip(s, e)) inner_.span(scope, category, name, id, s, e);
}

}  // namespace flynn
