#include "flynn/platform/perfetto_writer.h"

#include <algorithm>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

namespace flynn {

namespace {
std::uint64_t ps(const sc_core::sc_time& t) { return static_cast<std::uint64_t>(t.to_seconds() * 1e12 + 0.5); }

// Microseconds with picosecond resolution, as JSON number text.
std::string us(std::uint64_t p) {
  std::ostringstream o;
  o << p / 1000000 << "." << std::setw(6) << std::setfill('0') << p % 1000000;
  return o.str();
}
}  // namespace

int perfetto_writer::pid_of(const std::string& scope) {
  auto it = pids_.find(scope);
  if (it != pids_.end()) return it->second;
  const int pid = static_cast<int>(pids_.size()) + 1;
  pids_[scope] = pid;
  return pid;
}

int perfetto_writer::tid_of(int pid, const std::string& track) {
  auto key = std::make_pair(pid, track);
  auto it = tids_.find(key);
  if (it != tids_.end()) return it->second;
  const int tid = static_cast<int>(tids_.size()) + 1;
  tids_[key] = tid;
  return tid;
}

int perfetto_writer::declare(const std::string& scope, const std::string& name, unsigned width) {
  (void)width;
  signals_.push_back({pid_of(scope), name});
  return static_cast<int>(signals_.size()) - 1;
}

void perfetto_writer::change(int handle, const sc_core::sc_time& when, std::uint64_t value) {
  const signal& s = signals_[static_cast<std::size_t>(handle)];
  event e{ps(when), seq_++, 'C', s.pid, 0, s.name, "", 0, 0, value};
  events_.push_back(std::move(e));
}

void perfetto_writer::slice(const std::string& scope, const std::string& track, const std::string& name,
                            const sc_core::sc_time& start, const sc_core::sc_time& end) {
  const int pid = pid_of(scope);
  const std::uint64_t s = ps(start), e = std::max(s, ps(end));
  events_.push_back({s, seq_++, 'X', pid, tid_of(pid, track), name, "", e - s, 0, 0});
}

void perfetto_writer::span(const std::string& scope, const std::string& category, const std::string& name,
                           std::uint64_t id, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  const int pid = pid_of(scope);
  const std::uint64_t s = ps(start), e = std::max(s, ps(end));
  events_.push_back({s, seq_++, 'b', pid, 0, name, category, 0, id, 0});
  events_.push_back({e, seq_++, 'e', pid, 0, name, category, 0, id, 0});
}

void perfetto_writer::write(std::ostream& os) const {
  using nlohmann::json;
  std::vector<const event*> ev;
  for (const auto& e : events_) ev.push_back(&e);
  // Time order; at one time, ends before begins, then by module and track, then in the
  // module's recording order (so the file does not depend on the order in which processes
  // ran, or how far a module ran ahead of simulated time).
  std::stable_sort(ev.begin(), ev.end(), [](const event* a, const event* b) {
    if (a->ps != b->ps) return a->ps < b->ps;
    if ((a->ph == 'e') != (b->ph == 'e')) return a->ph == 'e';
    if (a->pid != b->pid) return a->pid < b->pid;
    if (a->tid != b->tid) return a->tid < b->tid;
    if (a->ph == 'C' && b->ph == 'C' && a->name != b->name) return a->name < b->name;  // a counter is a track of its own
    return a->seq < b->seq;
  });
  os << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first = true;
  auto sep = [&] {
    os << (first ? "" : ",\n");
    first = false;
  };
  for (const auto& [scope, pid] : pids_) {
    sep();
    os << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " << pid << ", \"tid\": 0, \"args\": {\"name\": "
       << json(scope).dump() << "}}";
  }
  for (const auto& [key, tid] : tids_) {
    sep();
    os << "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " << key.first << ", \"tid\": " << tid
       << ", \"args\": {\"name\": " << json(key.second).dump() << "}}";
  }
  for (const event* e : ev) {
    sep();
    os << "{\"ph\": \"" << e->ph << "\", \"name\": " << json(e->name).dump() << ", \"pid\": " << e->pid
       << ", \"tid\": " << e->tid << ", \"ts\": " << us(e->ps);
    if (e->ph == 'X') os << ", \"dur\": " << us(e->dur_ps);
    if (e->ph == 'b' || e->ph == 'e') os << ", \"cat\": " << json(e->cat).dump() << ", \"id\": " << e->id;
    if (e->ph == 'C') os << ", \"args\": {\"value\": " << e->value << "}";
    os << "}";
  }
  os << "\n]}\n";
}

}  // namespace flynn
