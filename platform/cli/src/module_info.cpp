#include "flynn/platform/module_info.h"

#include <algorithm>
#include <memory>
#include <sstream>

#include <tlm>

#include "flynn/platform/json_params.h"

namespace flynn {

using nlohmann::json;

namespace {

// A parameter visitor that leaves every default as it is.
class defaults_binder final : public param_visitor {
 public:
  void u64(const param_meta&, std::uint64_t&, std::uint64_t, std::uint64_t) override {}
  void i64(const param_meta&, std::int64_t&) override {}
  void f64(const param_meta&, double&, double, double) override {}
  void flag(const param_meta&, bool&) override {}
  void text(const param_meta&, std::string&) override {}
  void choice(const param_meta&, std::string&, const std::vector<std::string>&) override {}
  void u64_list(const param_meta&, std::vector<std::uint64_t>&) override {}
  void list(const param_meta&, param_list&) override {}
};

// Records the signals a module declares (and nothing else).
class declared_signals final : public trace_sink {
 public:
  int declare(const std::string& scope, const std::string& name, unsigned width) override {
    (void)scope;
    signals.push_back({name, width, width == 1 ? "binary" : "decimal"});
    return static_cast<int>(signals.size()) - 1;
  }
  void set_format(int handle, trace_format f) override {
    if (f == trace_format::hex) signals[static_cast<std::size_t>(handle)].format = "hex";
  }
  void change(int, const sc_core::sc_time&, std::uint64_t) override {}
  struct declared {
    std::string name;
    unsigned width;
    std::string format;
  };
  std::vector<declared> signals;
};

const char* stat_kind(stat_entry::kind k) {
  switch (k) {
    case stat_entry::kind::counter: return "counter";
    case stat_entry::kind::real: return "real";
    case stat_entry::kind::vector: return "vector";
    case stat_entry::kind::histogram: return "histogram";
  }
  return "?";
}

json socket_of(const sc_core::sc_object& c, const module& m, const std::vector<link_type>& links) {
  json s = {{"name", c.basename()}};
  if (const auto* t = dynamic_cast<const tlm::tlm_base_socket_if*>(&c)) {
    const auto cat = t->get_socket_category();
    s["direction"] = (cat & tlm::TLM_INITIATOR_SOCKET) ? "initiator" : "target";
    s["protocol"] = "TLM-2.0 base protocol, " + std::to_string(t->get_bus_width()) + "-bit";
  } else {
    for (const auto& l : links) {
      auto* o = const_cast<sc_core::sc_object*>(&c);
      if (l.is_port(o)) s["direction"] = "port", s["protocol"] = l.interface_name + " link";
      else if (l.is_export(o)) s["direction"] = "export", s["protocol"] = l.interface_name + " link";
    }
    if (!s.contains("direction")) return json();
  }
  const std::string lanes = m.socket_lanes(c.basename());
  s["lanes"] = lanes.empty() ? "-" : lanes;
  return s;
}

std::string cell(std::string x) {  // a '|' would end a Markdown table cell
  for (std::size_t i = 0; (i = x.find('|', i)) != std::string::npos; i += 2) x.replace(i, 1, "\\|");
  return x;
}

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

// The four tables of a module type: a title and the columns (key, heading) of each.
struct table {
  const char* key;
  const char* title;
  std::vector<std::pair<const char*, const char*>> columns;
  std::vector<std::size_t> code;  // columns shown as code in Markdown
};
const std::vector<table>& tables() {
  static const std::vector<table> t = {
      {"parameters",
       "Parameters",
       {{"name", "parameter"}, {"kind", "type"}, {"default", "default"}, {"unit", "unit"}, {"description", "description"}},
       {0, 2}},
      {"sockets",
       "Sockets and links",
       {{"name", "socket"}, {"direction", "direction"}, {"protocol", "protocol"}, {"lanes", "lanes"}},
       {0}},
      {"statistics",
       "Statistics",
       {{"name", "statistic"}, {"kind", "kind"}, {"unit", "unit"}, {"description", "description"}},
       {0}},
      {"trace_signals", "Trace signals", {{"name", "signal"}, {"width", "bits"}, {"format", "shown as"}}, {0}},
  };
  return t;
}

}  // namespace

json describe_module_type(const module_registry& registry, const std::string& type) {
  const module_type* t = registry.find(type);
  if (!t) return json();
  json info = {{"type", type}, {"description", t->description}};
  info["parameters"] = json::array();
  for (const auto& r : describe_params(t->describe))
    info["parameters"].push_back(
        {{"name", r.name}, {"kind", r.kind}, {"default", r.default_value}, {"unit", r.unit}, {"description", r.description}});

  defaults_binder defaults;
  const std::unique_ptr<module> m(t->create(sc_core::sc_gen_unique_name(type.c_str()), defaults));
  info["sockets"] = json::array();
  for (const auto* c : m->get_child_objects()) {
    json s = socket_of(*c, *m, registry.links());
    if (!s.is_null()) info["sockets"].push_back(std::move(s));
  }
  info["statistics"] = json::array();
  for (const auto& e : m->stats().entries())
    info["statistics"].push_back(
        {{"name", e.name}, {"kind", stat_kind(e.k)}, {"unit", e.unit}, {"description", e.description}});
  declared_signals sink;
  m->attach_trace(sink);
  info["trace_signals"] = json::array();
  for (const auto& d : sink.signals)
    info["trace_signals"].push_back({{"name", d.name}, {"width", d.width}, {"format", d.format}});
  return info;
}

std::string module_markdown(const json& info, const std::string& heading) {
  std::ostringstream o;
  o << heading << " `" << info["type"].get<std::string>() << "`\n\n" << info["description"].get<std::string>() << "\n\n";
  for (const auto& tb : tables()) {
    const json& rows = info[tb.key];
    o << heading << "# " << tb.title << "\n\n";
    if (rows.empty()) {
      o << "None.\n\n";
      continue;
    }
    for (const auto& [k, h] : tb.columns) o << "| " << h << " ";
    o << "|\n";
    for (std::size_t i = 0; i < tb.columns.size(); ++i) o << "| --- ";
    o << "|\n";
    for (const auto& r : rows) {
      for (std::size_t i = 0; i < tb.columns.size(); ++i) {
        const std::string v = cell(text_of(r[tb.columns[i].first]));
        const bool code = std::find(tb.code.begin(), tb.code.end(), i) != tb.code.end();
        o << "| " << (code && !v.empty() ? "`" + v + "`" : v) << " ";
      }
      o << "|\n";
    }
    o << "\n";
  }
  return o.str();
}

std::string module_text(const json& info) {
  std::ostringstream o;
  o << info["type"].get<std::string>() << " - " << info["description"].get<std::string>() << "\n";
  for (const auto& tb : tables()) {
    const json& rows = info[tb.key];
    o << "\n  " << tb.title << (rows.empty() ? ": none" : "") << "\n";
    if (rows.empty()) continue;
    // Every column as wide as its widest cell (the last one runs on).
    std::vector<std::size_t> w;
    for (const auto& [k, h] : tb.columns) w.push_back(std::string(h).size());
    for (const auto& r : rows)
      for (std::size_t i = 0; i < tb.columns.size(); ++i) w[i] = std::max(w[i], text_of(r[tb.columns[i].first]).size());
    auto line = [&](const std::vector<std::string>& cells) {
      std::string s = "   ";
      for (std::size_t i = 0; i < cells.size(); ++i) {
        s += " " + cells[i];
        if (i + 1 < cells.size()) s += std::string(w[i] - cells[i].size() + 1, ' ');
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      o << s << "\n";
    };
    std::vector<std::string> head;
    for (const auto& [k, h] : tb.columns) head.emplace_back(h);
    line(head);
    for (const auto& r : rows) {
      std::vector<std::string> cells;
      for (const auto& [k, h] : tb.columns) cells.push_back(text_of(r[k]));
      line(cells);
    }
  }
  return o.str();
}

}  // namespace flynn
