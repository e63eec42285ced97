#include "flynn/platform/scenario.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <optional>
#include <sstream>

#include "flynn/platform/errors.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace flynn {

std::string join_path(const std::string& a, const std::string& b) {
  return a.empty() ? b : a + "." + b;
}
std::string index_path(const std::string& a, std::size_t i) {
  return a + "[" + std::to_string(i) + "]";
}

std::string json_kind(const json& j) {
  std::string s = j.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "the boolean " + s;
    case json::value_t::string: return "the string " + s;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "the number " + s;
    case json::value_t::array: return "an array " + s;
    case json::value_t::object: return "an object";
    default: return s;
  }
}

std::string scenario_doc::origin_of(const std::string& path) const {
  std::string p = path;
  while (true) {
    auto it = origin.find(p);
    if (it != origin.end()) return it->second;
    const auto cut = p.find_last_of(".[");
    if (cut == std::string::npos) break;
    p = p.substr(0, cut);
  }
  return file;
}

namespace {

// "FILE:LINE:COL" of byte offset `byte` (1-based, as nlohmann counts) in `text`.
std::string json_position(const std::string& path, const std::string& text, std::size_t byte) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return path + ":" + std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace

json parse_json_text(const std::string& path, const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto pos = what.find("syntax error");
    if (pos != std::string::npos) what = what.substr(pos);
    throw input_error(json_position(path, text, e.byte) + ": malformed JSON: " + what);
  } catch (const json::exception& e) {
    // A number too large for a double ("1e999"): no position is given, so the number is
    // looked up in the text.
    std::string what = e.what();
    const auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    std::string where = path;
    const auto q = what.find('\'');
    const auto q2 = q == std::string::npos ? q : what.find('\'', q + 1);
    if (q2 != std::string::npos) {
      const auto at = text.find(what.substr(q + 1, q2 - q - 1));
      if (at != std::string::npos) where = json_position(path, text, at + 1);
    }
    throw input_error(where + ": malformed JSON: " + what);
  }
}

namespace {

json read_json(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw input_error(path + ": expected a scenario file (JSON), found a directory");
  if (!fs::exists(path, ec)) throw input_error(path + ": expected a scenario file (JSON), found nothing (no such file)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path + ": cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_text(path, ss.str());
}

// A value replaced as a whole takes the places under it with it: what the replaced value
// held there (and what is now missing there) comes from the replacement's origin.
void forget_origins_under(const std::string& path, std::map<std::string, std::string>& origin) {
  if (path.empty()) {
    origin.clear();
    return;
  }
  for (auto it = origin.lower_bound(path); it != origin.end() && it->first.compare(0, path.size(), path) == 0;)
    if (it->first.size() > path.size() && (it->first[path.size()] == '.' || it->first[path.size()] == '['))
      it = origin.erase(it);
    else
      ++it;
}

void record_origin(const json& j, const std::string& path, const std::string& file,
                   std::map<std::string, std::string>& origin) {
  origin[path] = file;
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it)
      record_origin(it.value(), join_path(path, it.key()), file, origin);
}

// Objects merge key by key; anything else in `over` replaces what `base` had.
void merge(json& base, const json& over, const std::string& path, const std::string& file,
           std::map<std::string, std::string>& origin) {
  if (!base.is_object() || !over.is_object()) {
    base = over;
    forget_origins_under(path, origin);
    record_origin(over, path, file, origin);
    return;
  }
  for (auto it = over.begin(); it != over.end(); ++it) {
    const std::string p = join_path(path, it.key());
    if (base.contains(it.key()))
      merge(base[it.key()], it.value(), p, file, origin);
    else {
      base[it.key()] = it.value();
      record_origin(it.value(), p, file, origin);
    }
  }
}

void load_into(scenario_doc& sd, const std::string& path, std::vector<std::string>& chain) {
  std::error_code ec;
  const std::string canon = fs::weakly_canonical(fs::path(path), ec).string();
  if (ec) throw input_error(path + ": not a usable file path (" + ec.message() + ")");
  for (const auto& c : chain)
    if (c == canon) throw input_error(path + ": extends: cycle through this file");
  chain.push_back(canon);
  json j = read_json(path);
  if (!j.is_object()) throw input_error(path, "", "a JSON object at the top level", json_kind(j));
  if (j.contains("extends")) {
    const json& e = j["extends"];
    if (!e.is_string()) throw input_error(path, "extends", "a relative file path string", json_kind(e));
    const fs::path base = fs::path(path).parent_path() / e.get<std::string>();
    std::error_code ec2;
    if (!fs::exists(base, ec2))
      throw input_error(path, "extends", "an existing file",
                        "'" + base.string() + "' (" + (ec2 ? ec2.message() : std::string("no such file")) + ")");
    load_into(sd, base.string(), chain);
    j.erase("extends");
    // A base says it is one for itself alone: what extends it is a platform to run unless it
    // says otherwise.
    if (!j.contains("abstract")) j["abstract"] = false;
  }
  merge(sd.doc, j, "", path, sd.origin);
}

}  // namespace

scenario_doc load_scenario_doc(const std::string& path) {
  scenario_doc sd;
  sd.file = path;
  sd.doc = json::object();
  std::vector<std::string> chain;
  load_into(sd, path, chain);
  if (!sd.doc.contains("name")) sd.doc["name"] = fs::path(path).stem().string();
  return sd;
}

void apply_override(scenario_doc& sd, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw input_error("--set " + assignment + ": expected PATH=VALUE (e.g. modules.mem.banks=8)");
  const std::string path = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  json value;
  try {
    value = json::parse(text);
  } catch (const json::exception&) {
    value = text;  // bare words (and numbers no double holds) are strings
  }
  json* node = &sd.doc;
  std::string walked;
  std::optional<std::string> created_at;
  std::stringstream ss(path);
  std::string key;
  std::vector<std::string> keys;
  while (std::getline(ss, key, '.')) keys.push_back(key);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string& k = keys[i];
    if (k.empty()) throw input_error("--set " + assignment + ": empty path component");
    if (node->is_array()) {
      std::size_t idx = 0;
      try {
        idx = std::stoul(k);
      } catch (...) {
        throw input_error("--set " + assignment + ": " + walked + " is an array; expected an index, found '" + k + "'");
      }
      if (idx >= node->size())
        throw input_error("--set " + assignment + ": " + walked + " has " +
                          std::to_string(node->size()) + " elements; index " + k + " is out of range");
      node = &(*node)[idx];
      walked = index_path(walked, idx);
    } else {
      if (!node->is_object()) {
        if (i == 0 || node->is_null()) *node = json::object();
        else
          throw input_error("--set " + assignment + ": " + walked + " is " + json_kind(*node) +
                            ", not an object");
      }
      const bool created = !node->contains(k);
      node = &(*node)[k];
      walked = join_path(walked, k);
      // A key the scenario did not have comes from this --set, and so does what it lacks
      // (a module made by --set alone has no type: the --set is named, not the file).
      if (created && !created_at) created_at = walked;
    }
  }
  if (created_at) sd.origin[*created_at] = "--set " + assignment;
  *node = value;
  forget_origins_under(walked, sd.origin);
  record_origin(value, walked, "--set " + assignment, sd.origin);
}

namespace {

const std::vector<std::string> top_keys = {"name",    "description", "abstract", "clock_ns",   "max_cycles",
                                           "modules", "bindings",    "workload", "calibration"};

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

scenario parse_scenario(const scenario_doc& sd) {
  const json& d = sd.doc;
  auto fail = [&](const std::string& path, const std::string& expected, const std::string& found) {
    throw input_error(sd.origin_of(path), path, expected, found);
  };
  for (auto it = d.begin(); it != d.end(); ++it)
    if (std::find(top_keys.begin(), top_keys.end(), it.key()) == top_keys.end()) {
      const std::string hint = did_you_mean(it.key(), top_keys);
      fail(it.key(), "one of the scenario keys (name, description, abstract, clock_ns, max_cycles, modules, bindings, workload, "
                         "calibration)" +
                         (hint.empty() ? "" : "; " + hint),
           "unknown key '" + it.key() + "'");
    }
  scenario s;
  if (!d["name"].is_string() || d["name"].get<std::string>().empty())
    fail("name", "a non-empty string", json_kind(d["name"]));
  s.name = d["name"].get<std::string>();
  for (char c : s.name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
      fail("name", "letters, digits, '_', '-' or '.' (it names the output folder)",
           "'" + s.name + "'");
  if (s.name == "." || s.name == "..") fail("name", "a folder name other than '.' and '..'", "'" + s.name + "'");
  if (d.contains("description")) {
    if (!d["description"].is_string()) fail("description", "a string", json_kind(d["description"]));
    s.description = d["description"].get<std::string>();
  }
  if (d.contains("clock_ns")) {
    const json& c = d["clock_ns"];
    if (!c.is_number() || c.get<double>() < 1e-3 || c.get<double>() > 1e6)
      fail("clock_ns", "a number of nanoseconds in [0.001, 1e6]", json_kind(c));
    s.clock_ns = c.get<double>();
  }
  if (d.contains("abstract")) {
    if (!d["abstract"].is_boolean()) fail("abstract", "true or false", json_kind(d["abstract"]));
    s.abstract = d["abstract"].get<bool>();
  }
  if (d.contains("max_cycles")) {
    const json& c = d["max_cycles"];
    if (!(c.is_number_unsigned() || (c.is_number_integer() && c.get<std::int64_t>() >= 0)) ||
        c.get<std::uint64_t>() > 1000000000000ull)
      fail("max_cycles", "an integer in [0, 1e12] (0: no limit)", json_kind(c));
    s.max_cycles = c.get<std::uint64_t>();
  }
  if (!d.contains("modules")) fail("modules", "an object of module instances", "nothing (missing)");
  const json& mods = d["modules"];
  if (!mods.is_object() || mods.empty())
    fail("modules", "a non-empty object of module instances", json_kind(mods));
  for (auto it = mods.begin(); it != mods.end(); ++it) {
    const std::string path = join_path("modules", it.key());
    if (!is_identifier(it.key()))
      fail(path, "an instance name made of letters, digits and '_'", "'" + it.key() + "'");
    if (!it.value().is_object()) fail(path, "an object with \"type\" and parameters", json_kind(it.value()));
    if (!it.value().contains("type")) fail(join_path(path, "type"), "a module type name", "nothing (missing)");
    if (!it.value()["type"].is_string())
      fail(join_path(path, "type"), "a module type name", json_kind(it.value()["type"]));
    s.modules.push_back({it.key(), it.value()["type"].get<std::string>(), path, &it.value()});
  }
  if (d.contains("bindings")) {
    const json& b = d["bindings"];
    if (!b.is_array()) fail("bindings", "an array of [\"module.socket\", \"module.socket\"] pairs", json_kind(b));
    for (std::size_t i = 0; i < b.size(); ++i) {
      const std::string path = index_path("bindings", i);
      const json& e = b[i];
      if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_string())
        fail(path, "a pair [\"initiator.socket\", \"target.socket\"]", json_kind(e));
      s.bindings.push_back({e[0].get<std::string>(), e[1].get<std::string>(), path});
    }
  }
  if (d.contains("calibration")) {
    const json& c = d["calibration"];
    if (!c.is_array()) fail("calibration", "an array of {\"stat\", \"published\", \"tolerance\", \"source\"}", json_kind(c));
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::string path = index_path("calibration", i);
      const json& e = c[i];
      if (!e.is_object()) fail(path, "an object {\"stat\", \"published\", \"tolerance\", \"source\"}", json_kind(e));
      for (auto it = e.begin(); it != e.end(); ++it)
        if (it.key() != "stat" && it.key() != "published" && it.key() != "tolerance" && it.key() != "source")
          fail(path + "." + it.key(), "stat, published, tolerance or source", "unknown key '" + it.key() + "'");
      calibration_target t;
      t.path = path;
      if (!e.contains("stat") || !e["stat"].is_string())
        fail(path + ".stat", "a statistic (\"top.sm.shared_load_latency\")", e.contains("stat") ? json_kind(e["stat"]) : "nothing (missing)");
      t.stat = e["stat"].get<std::string>();
      if (!e.contains("published") || !e["published"].is_number())
        fail(path + ".published", "a number", e.contains("published") ? json_kind(e["published"]) : "nothing (missing)");
      t.published = e["published"].get<double>();
      if (e.contains("tolerance")) {
        if (!e["tolerance"].is_number() || e["tolerance"].get<double>() < 0 || e["tolerance"].get<double>() > 10)
          fail(path + ".tolerance", "a relative tolerance in [0, 10]", json_kind(e["tolerance"]));
        t.tolerance = e["tolerance"].get<double>();
      }
      if (e.contains("source")) {
        if (!e["source"].is_string()) fail(path + ".source", "a string", json_kind(e["source"]));
        t.source = e["source"].get<std::string>();
      }
      s.calibration.push_back(std::move(t));
    }
  }
  if (d.contains("workload")) {
    if (!d["workload"].is_object()) fail("workload", "an object (program, core, memory, init, expect)", json_kind(d["workload"]));
    s.workload = &d["workload"];
  }
  return s;
}

}  // namespace flynn
