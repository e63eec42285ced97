#include "flynn/platform/scenario.h"

#include <algorithm>
#include <functional>
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
  std::string s = j.dump(-1, ' ', true, json::error_handler_t::replace);  // ASCII: escapes, never raw bytes
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

namespace {

void reject_unknown(const json& object, const std::vector<std::string>& keys, const std::string& prefix,
                    const std::string& what, const std::function<std::string(const std::string&)>& file_of) {
  for (auto it = object.begin(); it != object.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      const std::string hint = did_you_mean(it.key(), keys), path = prefix + it.key();
      throw input_error(file_of(path), path, what + (hint.empty() ? "" : "; " + hint), "unknown key " + excerpt(it.key()));
    }
}

}  // namespace

void reject_unknown_keys(const json& object, const std::vector<std::string>& keys, const std::string& prefix,
                         const std::string& what, const scenario_doc& sd) {
  reject_unknown(object, keys, prefix, what, [&sd](const std::string& path) { return sd.origin_of(path); });
}

void reject_unknown_keys(const json& object, const std::vector<std::string>& keys, const std::string& prefix,
                         const std::string& what, const std::string& file) {
  reject_unknown(object, keys, prefix, what, [&file](const std::string&) { return file; });
}

namespace {

// "a.b[3].c" -> "a", "b", "[3]", "c" (the components origin_of has always walked up by).
std::vector<std::string> path_components(const std::string& path) {
  std::vector<std::string> r;
  std::string cur;
  for (char c : path) {
    if (c == '.' || c == '[') {
      if (!cur.empty()) r.push_back(std::move(cur));
      cur.clear();
      if (c == '[') cur = "[";
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) r.push_back(std::move(cur));
  return r;
}

}  // namespace

std::size_t origin_map::under(std::size_t n, const std::string& key) {
  for (auto& c : path_components(key)) {
    const auto it = nodes_[n].children.find(c);
    if (it != nodes_[n].children.end()) {
      n = it->second;
      continue;
    }
    nodes_.emplace_back();
    nodes_[n].children.emplace(std::move(c), nodes_.size() - 1);
    n = nodes_.size() - 1;
  }
  return n;
}

void origin_map::set(std::size_t n, const std::string& source) {
  // Sources are few (the files of one chain and the --set overrides): the newest first.
  auto known = std::find(sources_.rbegin(), sources_.rend(), source);
  if (known == sources_.rend()) {
    sources_.push_back(source);
    known = sources_.rbegin();
  }
  nodes_[n].source = static_cast<int>(sources_.rend() - known) - 1;
}

void origin_map::set(const std::string& path, const std::string& source) { set(under(0, path), source); }

void origin_map::forget_under(const std::string& path) {
  std::size_t n = 0;
  for (const auto& c : path_components(path)) {
    const auto it = nodes_[n].children.find(c);
    if (it == nodes_[n].children.end()) return;
    n = it->second;
  }
  nodes_[n].children.clear();  // (their nodes stay unreachable in nodes_: no recursion to free them)
}

std::string origin_map::lookup(const std::string& path, const std::string& fallback) const {
  std::size_t n = 0;
  int found = nodes_[0].source;
  for (const auto& c : path_components(path)) {
    const auto it = nodes_[n].children.find(c);
    if (it == nodes_[n].children.end()) break;
    n = it->second;
    if (nodes_[n].source >= 0) found = nodes_[n].source;
  }
  return found >= 0 ? sources_[static_cast<std::size_t>(found)] : fallback;
}

std::string scenario_doc::origin_of(const std::string& path) const { return origin.lookup(path, file); }

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

// Throws before parsing a document nested deeper than max_json_depth, so that nothing
// that walks it afterwards recurses without bound.
void check_json_depth(const std::string& path, const std::string& text) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_json_depth)
        throw input_error(json_position(path, text, i + 1) + ": expected JSON nested at most " +
                          std::to_string(max_json_depth) + " levels deep, found deeper nesting");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace

json parse_json_text(const std::string& path, const std::string& text) {
  check_json_depth(path, text);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto pos = what.find("syntax error");
    if (pos != std::string::npos) what = what.substr(pos);
    // The text nlohmann read last is quoted whole: cut it short.
    const auto last = what.find("last read: '");
    if (last != std::string::npos && what.size() - last > 12 + 41) what = what.substr(0, last + 12 + 40) + "...'";
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

// A value replaced as a whole takes the places under it with it: what the replaced value
// held there (and what is now missing there) comes from the replacement's origin.
void replace_origin(std::size_t node, const std::string& source, origin_map& origin) {
  origin.forget_under(node);
  origin.set(node, source);
}

// Objects merge key by key; anything else in `over` replaces what `base` had. `node` is the
// place of `base` in the origin tree. Recursion is bounded by max_json_depth
// (parse_json_text has checked it), and no path is built: time and memory are linear in
// the documents.
void merge(json& base, json&& over, std::size_t node, const std::string& file, origin_map& origin) {
  if (!base.is_object() || !over.is_object()) {
    base = std::move(over);
    replace_origin(node, file, origin);
    return;
  }
  for (auto it = over.begin(); it != over.end(); ++it) {
    const std::size_t at_node = origin.under(node, it.key());
    const auto at = base.find(it.key());
    if (at != base.end()) {
      merge(*at, std::move(it.value()), at_node, file, origin);
    } else {
      base[it.key()] = std::move(it.value());
      origin.set(at_node, file);
    }
  }
}

}  // namespace

scenario_doc load_scenario_doc(const std::string& path) {
  scenario_doc sd;
  sd.file = path;
  sd.doc = json::object();
  // The chain, scenario first: each file read once, checked, then merged from the last base
  // up, so that each file overrides what it extends. A loop, not recursion: a chain's length
  // costs no stack.
  std::vector<std::pair<std::string, json>> chain;
  std::set<std::string> seen;
  std::uint64_t bytes = 0;
  for (std::string file = path; !file.empty();) {
    std::error_code ec;
    const std::string canon = fs::weakly_canonical(fs::path(file), ec).string();
    if (ec) throw input_error(file + ": not a usable file path (" + ec.message() + ")");
    if (!seen.insert(canon).second) throw input_error(file + ": extends: cycle through this file");
    if (chain.size() == max_extends_chain)
      throw input_error(chain.back().first, "extends",
                        "a chain of at most " + std::to_string(max_extends_chain) + " files (the scenario included)",
                        "a longer chain");
    std::string text = read_source(file, "a scenario file (JSON)");
    bytes += text.size();
    if (bytes > max_input_bytes)
      throw input_error(file + ": expected a scenario and the files it extends of at most " +
                        std::to_string(max_input_bytes >> 20) + " MiB together, found more");
    json j = parse_json_text(file, text);
    sd.sources.emplace_back(file, std::move(text));
    if (!j.is_object()) throw input_error(file, "", "a JSON object at the top level", json_kind(j));
    std::string next;
    if (j.contains("extends")) {
      const json& e = j["extends"];
      if (!e.is_string()) throw input_error(file, "extends", "a relative file path string", json_kind(e));
      const fs::path base = fs::path(file).parent_path() / e.get<std::string>();
      std::error_code ec2;
      if (!fs::exists(base, ec2))
        throw input_error(file, "extends", "an existing file",
                          excerpt(base.string(), 200) + " (" + (ec2 ? ec2.message() : std::string("no such file")) + ")");
      next = base.string();
      j.erase("extends");
      // A base says it is one for itself alone: what extends it is a platform to run unless
      // it says otherwise.
      if (!j.contains("abstract")) j["abstract"] = false;
    }
    chain.emplace_back(file, std::move(j));
    file = next;
  }
  for (std::size_t i = chain.size(); i-- > 0;) merge(sd.doc, std::move(chain[i].second), 0, chain[i].first, sd.origin);
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
    check_json_depth("--set " + path, text);
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
  if (keys.size() > max_json_depth)
    throw input_error("--set " + excerpt(path) + ": expected a path of at most " + std::to_string(max_json_depth) +
                      " components, found " + std::to_string(keys.size()));
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
  if (created_at) sd.origin.set(*created_at, "--set " + assignment);
  *node = std::move(value);
  const std::size_t at = sd.origin.under(0, walked);
  replace_origin(at, "--set " + assignment, sd.origin);
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
  reject_unknown_keys(d, top_keys, "",
                      "one of the scenario keys (name, description, abstract, clock_ns, max_cycles, modules, bindings, "
                      "workload, calibration)",
                      sd);
  scenario s;
  if (!d["name"].is_string() || d["name"].get<std::string>().empty())
    fail("name", "a non-empty string", json_kind(d["name"]));
  s.name = d["name"].get<std::string>();
  if (const std::string bad = unsafe_name_char(s.name); !bad.empty())
    fail("name", "letters, digits, '_', '-' or '.' (it names the output folder)", excerpt(s.name, 80) + ", with " + bad);
  if (s.name == "." || s.name == "..") fail("name", "a folder name other than '.' and '..'", excerpt(s.name, 80));
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
      fail(path, "an instance name made of letters, digits and '_'", excerpt(it.key(), 80));
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
    if (!c.is_array())
      fail("calibration", "an array of {\"stat\", \"published\", \"tolerance\", \"source\", \"kind\"}", json_kind(c));
    for (std::size_t i = 0; i < c.size(); ++i) {
      const std::string path = index_path("calibration", i);
      const json& e = c[i];
      if (!e.is_object()) fail(path, "an object {\"stat\", \"published\", \"tolerance\", \"source\", \"kind\"}", json_kind(e));
      for (auto it = e.begin(); it != e.end(); ++it)
        if (it.key() != "stat" && it.key() != "published" && it.key() != "tolerance" && it.key() != "source" &&
            it.key() != "kind")
          fail(path + "." + it.key(), "stat, published, tolerance, source or kind", "unknown key " + excerpt(it.key()));
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
      // What agreement with the figure shows: docs/calibration.md.
      if (!e.contains("kind") || !e["kind"].is_string() ||
          (e["kind"] != "fitted" && e["kind"] != "consistency" && e["kind"] != "predicted"))
        fail(path + ".kind",
             "\"fitted\", \"consistency\" or \"predicted\" (a parameter was fitted to the figure, the figure restates "
             "a parameter set from it, or neither)",
             e.contains("kind") ? json_kind(e["kind"]) : "nothing (missing)");
      t.kind = e["kind"].get<std::string>();
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
