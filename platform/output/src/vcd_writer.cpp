#include "flynn/platform/vcd_writer.h"

#include <iomanip>

#include <cmath>

#include <algorithm>
#include <map>

namespace flynn {

namespace {
std::string id_code(std::size_t n) {  // printable VCD identifier codes: ! .. ~
  std::string s;
  do {
    s += static_cast<char>('!' + n % 94);
    n /= 94;
  } while (n);
  return s;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::size_t b = 0;
  while (true) {
    const auto e = s.find('.', b);
    parts.push_back(s.substr(b, e - b));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return parts;
}

std::string value_text(std::uint64_t v, unsigned width, const std::string& code) {
  if (width == 1) return std::to_string(v & 1) + code;
  std::string bits;
  for (int b = static_cast<int>(width) - 1; b >= 0; --b) {
    const bool one = b < 64 && ((v >> b) & 1);
    if (!bits.empty() || one || b == 0) bits += one ? '1' : '0';
  }
  return "b" + bits + " " + code;
}
}  // namespace

vcd_writer::vcd_writer(std::size_t changes_in_memory) : events_(changes_in_memory) {}

int vcd_writer::declare(const std::string& scope, const std::string& name, unsigned width) {
  active_.push_back(false);
  signals_.push_back({scope, name, width ? width : 1, id_code(signals_.size())});
  return static_cast<int>(signals_.size() - 1);
}

void vcd_writer::set_format(int handle, trace_format format) {
  signals_[static_cast<std::size_t>(handle)].format = format;
}

void vcd_writer::change(int handle, const sc_core::sc_time& when, std::uint64_t value) {
  events_.push({when.value(), seq_++, handle, value});
  if (value != 0) active_[static_cast<std::size_t>(handle)] = true;
}

std::string vcd_writer::full_name(const signal& s) const {
  std::string n = s.scope + "." + s.name;
  if (s.width > 1) n += "[" + std::to_string(s.width - 1) + ":0]";
  return n;
}

void vcd_writer::write_vcd(std::ostream& os) {
  os << "$version Flynn $end\n$timescale 1ps $end\n";
  // Scopes in declaration order of their first signal, nested by the dotted hierarchy.
  std::vector<std::size_t> order(signals_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return signals_[a].scope < signals_[b].scope;
  });
  std::vector<std::string> open;
  for (std::size_t i : order) {
    const signal& s = signals_[i];
    const auto parts = split(s.scope);
    std::size_t common = 0;
    while (common < open.size() && common < parts.size() && open[common] == parts[common]) ++common;
    while (open.size() > common) {
      os << "$upscope $end\n";
      open.pop_back();
    }
    for (std::size_t k = common; k < parts.size(); ++k) {
      os << "$scope module " << parts[k] << " $end\n";
      open.push_back(parts[k]);
    }
    os << "$var wire " << s.width << " " << s.code << " " << s.name;
    if (s.width > 1) os << " [" << s.width - 1 << ":0]";
    os << " $end\n";
  }
  while (!open.empty()) {
    os << "$upscope $end\n";
    open.pop_back();
  }
  os << "$enddefinitions $end\n";

  std::vector<std::uint64_t> current(signals_.size(), 0);
  os << "#0\n$dumpvars\n";
  for (const signal& s : signals_) os << value_text(0, s.width, s.code) << "\n";
  os << "$end\n";

  // Changes in time order; of several changes of a signal at one time the last one wins.
  std::uint64_t time = 0;
  std::map<int, std::uint64_t> last;
  auto flush = [&] {
    bool stamped = false;
    for (const auto& [h, v] : last) {
      if (current[h] == v) continue;
      if (!stamped) {
        if (time != 0) os << "#" << time << "\n";  // time 0 is stamped already
        stamped = true;
      }
      current[h] = v;
      os << value_text(v, signals_[h].width, signals_[h].code) << "\n";
    }
    last.clear();
  };
  events_.drain([&](const event& e) {
    if (e.time != time) {
      flush();
      time = e.time;
    }
    last[e.handle] = e.value;
  });
  flush();
}

void vcd_writer::add_view(const trace_view& v) {
  for (const auto& x : views_)
    if (x.name == v.name) return;  // the first proposal of a name wins
  views_.push_back(v);
}

// One group per module (`first` scopes first, in that order), signals that change.
void vcd_writer::write_groups(std::ostream& os, const std::vector<std::string>& first) const {
  const std::vector<bool>& active = active_;
  std::vector<std::string> scopes;
  for (const signal& s : signals_)
    if (std::find(scopes.begin(), scopes.end(), s.scope) == scopes.end()) scopes.push_back(s.scope);
  std::sort(scopes.begin(), scopes.end(), [&](const std::string& a, const std::string& b) {
    const auto ia = std::find(first.begin(), first.end(), a) - first.begin();
    const auto ib = std::find(first.begin(), first.end(), b) - first.begin();
    return ia != ib ? ia < ib : a < b;
  });
  for (const auto& scope : scopes) {
    os << "@800200\n-" << scope << "\n";
    for (std::size_t i = 0; i < signals_.size(); ++i) {
      const signal& s = signals_[i];
      if (s.scope != scope || !active[i]) continue;
      // GTKWave trace flags: right-justified (0x20) binary (0x08), hex (0x02) or decimal (0x04).
      os << (s.width == 1 ? "@28\n" : s.format == trace_format::hex ? "@22\n" : "@24\n") << full_name(s) << "\n";
    }
    os << "@1000200\n-" << scope << "\n";
  }
}

void vcd_writer::write_gtkw(std::ostream& os, const std::string& vcd_name) const {
  // The view shows the signals that change during the run (the VCD has them all).
  os << "[*] GTKWave view written by Flynn: one group per module, signals that change\n";
  os << "[dumpfile] \"" << vcd_name << "\"\n";
  os << "[timestart] 0\n[size] 1400 800\n[signals_width] 260\n[sst_expanded] 1\n";
  write_groups(os, {});
}

void vcd_writer::write_view_gtkw(std::ostream& os, const std::string& vcd_name, const trace_view& v) const {
  // Times in the VCD's unit (ps). The zoom fits the window (plus 5% each side) into the
  // about 840 pixels of wave area a 1400-pixel window leaves beside the signal names:
  // GTKWave's zoom z shows 2^-z / 200 time units per pixel.
  const auto start = static_cast<std::uint64_t>(v.start.to_seconds() * 1e12 + 0.5);
  const auto end = static_cast<std::uint64_t>(v.end.to_seconds() * 1e12 + 0.5);
  const double span = double(end > start ? end - start : 1);
  const std::uint64_t margin = static_cast<std::uint64_t>(span / 20);
  const double zoom = -std::log2((span + 2.0 * double(margin)) / 840.0 * 200.0);
  os << "[*] GTKWave view written by Flynn: " << v.title << "\n";
  os << "[dumpfile] \"" << vcd_name << "\"\n";
  os << "[timestart] " << (start > margin ? start - margin : 0) << "\n[size] 1400 800\n[signals_width] 260\n[sst_expanded] 1\n";
  // Zoom, primary marker, then named markers A (start) and B (end); -1: unset.
  os << "*" << std::fixed << std::setprecision(6) << zoom << " " << start << " " << start << " " << end;
  for (int k = 2; k < 26; ++k) os << " -1";
  os << "\n";
  write_groups(os, v.scopes);
}

}  // namespace flynn
