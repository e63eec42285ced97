#include "flynn/platform/stats_writer.h"

#include <cmath>
#include <iomanip>
#include <sstream>

using nlohmann::json;

namespace flynn {

namespace {
double rounded(double x) {  // stable text and JSON: 9 significant digits
  if (!std::isfinite(x)) return 0.0;
  std::ostringstream s;
  s << std::setprecision(9) << x;
  return std::stod(s.str());
}

std::string value_text(const stat_entry& e) {
  std::ostringstream s;
  switch (e.k) {
    case stat_entry::kind::counter: s << e.counter->value(); break;
    case stat_entry::kind::real: s << std::setprecision(6) << rounded(e.real()); break;
    case stat_entry::kind::vector: {
      s << "[";
      for (std::size_t i = 0; i < e.vector->size(); ++i) s << (i ? " " : "") << (*e.vector)[i].value();
      s << "]";
      break;
    }
    case stat_entry::kind::histogram: {
      const auto& h = *e.histogram;
      s << "samples " << h.samples() << ", min " << h.min() << ", mean " << std::setprecision(6)
        << h.mean() << ", max " << h.max();
      break;
    }
  }
  return s.str();
}
}  // namespace

json stats_to_json(const stats_group& g) {
  json o = json::object();
  for (const auto& e : g.entries()) {
    switch (e.k) {
      case stat_entry::kind::counter: o[e.name] = e.counter->value(); break;
      case stat_entry::kind::real: o[e.name] = rounded(e.real()); break;
      case stat_entry::kind::vector: {
        json a = json::array();
        for (const auto& c : *e.vector) a.push_back(c.value());
        o[e.name] = a;
        break;
      }
      case stat_entry::kind::histogram: {
        const auto& h = *e.histogram;
        o[e.name] = {{"bucket_width", h.bucket_width()}, {"counts", h.counts()},
                     {"samples", h.samples()}, {"min", h.min()}, {"max", h.max()},
                     {"mean", rounded(h.mean())}};
        break;
      }
    }
  }
  return o;
}

void write_stats_text(std::ostream& os, const std::vector<const stats_group*>& groups) {
  for (const auto* g : groups) {
    for (const auto& e : g->entries()) {
      std::string name = g->owner() + "." + e.name;
      std::string val = value_text(e);
      os << std::left << std::setw(40) << name << " " << std::setw(14) << val << " # "
         << e.description << (e.unit.empty() ? "" : " (" + e.unit + ")") << "\n";
    }
  }
}

}  // namespace flynn
