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

perfetto_writer::perfetto_writer(std::size_t events_in_memory)
    : events_(events_in_memory, later_first{&names_}) {}

bool perfetto_writer::later_first::operator()(const event& a, const event& b) const {
  if (a.ps != b.ps) return a.ps < b.ps;
  if ((a.ph == 'e') != (b.ph == 'e')) return a.ph == 'e';
  if (a.pid != b.pid) return a.pid < b.pid;
  if (a.tid != b.tid) return a.tid < b.tid;
  if (a.ph == 'C' && b.ph == 'C' && a.name != b.name)
    return (*names)[a.name] < (*names)[b.name];  // a counter is a track of its own
  return a.seq < b.seq;
}

std::uint32_t perfetto_writer::name_of(const std::string& n) {
  auto it = name_index_.find(n);
  if (it != name_index_.end()) return it->second;
  const auto i = static_cast<std::uint32_t>(names_.size());
  names_.push_back(n);
  name_index_.emplace(n, i);
  return i;
}

int perfetto_writer::declare(const std::string& scope, const std::string& name, unsigned width) {
  (void)width;
  signals_.push_back({pid_of(scope), name_of(name)});
  return static_cast<int>(signals_.size()) - 1;
}

void perfetto_writer::change(int handle, const sc_core::sc_time& when, std::uint64_t value) {
  const signal& s = signals_[static_cast<std::size_t>(handle)];
  events_.push({ps(when), seq_++, 0, 0, value, s.pid, 0, s.name, 0, 'C'});
}

void perfetto_writer::slice(const std::string& scope, const std::string& track, const std::string& name,
                            const sc_core::sc_time& start, const sc_core::sc_time& end) {
  const int pid = pid_of(scope);
  const std::uint64_t s = ps(start), e = std::max(s, ps(end));
  events_.push({s, seq_++, e - s, 0, 0, pid, tid_of(pid, track), name_of(name), 0, 'X'});
}

void perfetto_writer::span(const std::string& scope, const std::string& category, const std::string& name,
                           std::uint64_t id, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  const int pid = pid_of(scope);
  const std::uint64_t s = ps(start), e = std::max(s, ps(end));
  const std::uint32_t n = name_of(name), c = name_of(category);
  events_.push({s, seq_++, 0, id, 0, pid, 0, n, c, 'b'});
  events_.push({e, seq_++, 0, id, 0, pid, 0, n, c, 'e'});
}

void perfetto_writer::write(std::ostream& os) {
  using nlohmann::json;
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
  std::vector<std::string> quoted;  // each name as JSON text, made once
  quoted.reserve(names_.size());
  for (const auto& n : names_) quoted.push_back(json(n).dump());
  events_.drain([&](const event& e) {
    sep();
    os << "{\"ph\": \"" << e.ph << "\", \"name\": " << quoted[e.name] << ", \"pid\": " << e.pid
       << ", \"tid\": " << e.tid << ", \"ts\": " << us(e.ps);
    if (e.ph == 'X') os << ", \"dur\": " << us(e.dur_ps);
    if (e.ph == 'b' || e.ph == 'e') os << ", \"cat\": " << quoted[e.cat] << ", \"id\": " << e.id;
    if (e.ph == 'C') os << ", \"args\": {\"value\": " << e.value << "}";
    os << "}";
  });
  os << "\n]}\n";
}

}  // namespace flynn
