#include "flynn/platform/json_params.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "flynn/platform/errors.h"

using nlohmann::json;

namespace flynn {

json_binder::json_binder(const json& src, json& resolved, std::string path,
                         const scenario_doc& sd, std::set<std::string> ignore)
    : src_(src), out_(resolved), path_(std::move(path)), sd_(sd), ignore_(std::move(ignore)) {
  if (!out_.is_object()) out_ = json::object();
}

const json* json_binder::find(const char* name) {
  names_.push_back(name);
  if (!src_.is_object()) return nullptr;
  auto it = src_.find(name);
  if (it == src_.end()) return nullptr;
  used_.insert(name);
  return &*it;
}

void json_binder::fail(const char* name, const std::string& expected, const json& found) const {
  const std::string p = join_path(path_, name);
  throw input_error(sd_.origin_of(p), p, expected, json_kind(found));
}

void json_binder::reject_unknown() const {
  if (!src_.is_object()) return;
  for (auto it = src_.begin(); it != src_.end(); ++it) {
    if (used_.count(it.key()) || ignore_.count(it.key())) continue;
    const std::string p = join_path(path_, it.key());
    std::string hint = did_you_mean(it.key(), names_);
    throw input_error(sd_.origin_of(p), p,
                      "a parameter of this module" + (hint.empty() ? std::string() : " (" + hint + ")"),
                      "unknown key " + excerpt(it.key()));
  }
}

void json_binder::u64(const param_meta& m, std::uint64_t& v, std::uint64_t min, std::uint64_t max) {
  if (const json* j = find(m.name)) {
    std::uint64_t x = 0;
    bool ok = false;
    if (j->is_number_unsigned()) {
      x = j->get<std::uint64_t>();
      ok = true;
    } else if (j->is_number_float()) {
      const double d = j->get<double>();
      ok = d >= 0 && d == std::floor(d) && d < 1.8e19;
      x = ok ? static_cast<std::uint64_t>(d) : 0;
    }
    std::string range = "an unsigned integer";
    if (min != 0 || max != std::numeric_limits<std::uint64_t>::max())
      range += " in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    if (!ok || x < min || x > max) fail(m.name, range, *j);
    v = x;
  }
  out_[m.name] = v;
}

void json_binder::i64(const param_meta& m, std::int64_t& v) {
  if (const json* j = find(m.name)) {
    if (!j->is_number_integer() ||
        (j->is_number_unsigned() && j->get<std::uint64_t>() > std::uint64_t(INT64_MAX)))
      fail(m.name, "an integer", *j);
    v = j->get<std::int64_t>();
  }
  out_[m.name] = v;
}

void json_binder::f64(const param_meta& m, double& v, double min, double max) {
  if (const json* j = find(m.name)) {
    if (!j->is_number() || j->get<double>() < min || j->get<double>() > max) {
      std::ostringstream e;
      e << "a number in [" << min << ", " << max << "]";
      fail(m.name, e.str(), *j);
    }
    v = j->get<double>();
  }
  out_[m.name] = v;
}

void json_binder::flag(const param_meta& m, bool& v) {
  if (const json* j = find(m.name)) {
    if (!j->is_boolean()) fail(m.name, "true or false", *j);
    v = j->get<bool>();
  }
  out_[m.name] = v;
}

void json_binder::text(const param_meta& m, std::string& v) {
  if (const json* j = find(m.name)) {
    if (!j->is_string()) fail(m.name, "a string", *j);
    v = j->get<std::string>();
  }
  out_[m.name] = v;
}

void json_binder::choice(const param_meta& m, std::string& v, const std::vector<std::string>& choices) {
  if (const json* j = find(m.name)) {
    std::string all;
    for (const auto& c : choices) all += (all.empty() ? "" : ", ") + ("\"" + c + "\"");
    if (!j->is_string()) fail(m.name, "one of " + all, *j);
    const std::string s = j->get<std::string>();
    if (std::find(choices.begin(), choices.end(), s) == choices.end()) {
      const std::string hint = did_you_mean(s, choices);
      fail(m.name, "one of " + all + (hint.empty() ? "" : " (" + hint + ")"), *j);
    }
    v = s;
  }
  out_[m.name] = v;
}

void json_binder::u64_list(const param_meta& m, std::vector<std::uint64_t>& v) {
  if (const json* j = find(m.name)) {
    if (!j->is_array()) fail(m.name, "an array of unsigned integers", *j);
    v.clear();
    for (std::size_t i = 0; i < j->size(); ++i) {
      if (!(*j)[i].is_number_unsigned()) {
        const std::string p = index_path(join_path(path_, m.name), i);
        throw input_error(sd_.origin_of(p), p, "an unsigned integer", json_kind((*j)[i]));
      }
      v.push_back((*j)[i].get<std::uint64_t>());
    }
  }
  out_[m.name] = v;
}

void json_binder::list(const param_meta& m, param_list& v) {
  const json* j = find(m.name);
  if (j && !j->is_array()) fail(m.name, "an array of objects", *j);
  if (j) v.resize(j->size());
  json arr = json::array();
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = index_path(join_path(path_, m.name), i);
    static const json empty = json::object();
    const json& elem = j ? (*j)[i] : empty;
    if (!elem.is_object()) throw input_error(sd_.origin_of(p), p, "an object", json_kind(elem));
    json r = json::object();
    json_binder b(elem, r, p, sd_);
    v.visit_element(i, b);
    b.reject_unknown();
    arr.push_back(std::move(r));
  }
  out_[m.name] = std::move(arr);
}

// ---------------------------------------------------------------------------- describe

namespace {
class describer final : public param_visitor {
 public:
  describer(std::vector<param_row>& rows, std::string prefix) : rows_(rows), prefix_(std::move(prefix)) {}
  void u64(const param_meta& m, std::uint64_t& v, std::uint64_t min, std::uint64_t max) override {
    std::string k = "uint";
    if (max != std::numeric_limits<std::uint64_t>::max())
      k += " [" + std::to_string(min) + ", " + std::to_string(max) + "]";
    else if (min != 0)
      k += " >= " + std::to_string(min);
    add(m, k, std::to_string(v));
  }
  void i64(const param_meta& m, std::int64_t& v) override { add(m, "int", std::to_string(v)); }
  void f64(const param_meta& m, double& v, double, double) override { add(m, "real", json(v).dump()); }
  void flag(const param_meta& m, bool& v) override { add(m, "bool", v ? "true" : "false"); }
  void text(const param_meta& m, std::string& v) override { add(m, "string", json(v).dump()); }
  void choice(const param_meta& m, std::string& v, const std::vector<std::string>& c) override {
    std::string k;
    for (const auto& x : c) k += (k.empty() ? "" : "|") + x;
    add(m, k, v);
  }
  void u64_list(const param_meta& m, std::vector<std::uint64_t>& v) override {
    add(m, "uint list", json(v).dump());
  }
  void list(const param_meta& m, param_list& v) override {
    add(m, "list", std::to_string(v.size()) + " element(s)");
    if (v.size() == 0) v.resize(1);
    describer d(rows_, prefix_ + m.name + "[].");
    v.visit_element(0, d);
  }

 private:
  void add(const param_meta& m, std::string kind, std::string def) {
    rows_.push_back({prefix_ + m.name, std::move(kind), std::move(def), m.unit, m.description});
  }
  std::vector<param_row>& rows_;
  std::string prefix_;
};
}  // namespace

std::vector<param_row> describe_params(const std::function<void(param_visitor&)>& visit) {
  std::vector<param_row> rows;
  describer d(rows, "");
  visit(d);
  return rows;
}

}  // namespace flynn
