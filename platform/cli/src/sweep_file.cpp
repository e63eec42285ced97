// flynn sweep's file: the sweep file read and checked (every entry, with its location when it
// is bad), its points expanded (a grid or zipped lists) and named, and the command line of
// each point's run.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "flynn/platform/errors.h"
#include "flynn/platform/output.h"
#include "flynn/platform/scenario.h"
#include "sweep_parts.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace flynn::sweep_detail {

namespace {

[[noreturn]] void bad(const std::string& file, const std::string& path, const std::string& expected,
                      const json* found) {
  throw input_error(file, path, expected, found ? json_kind(*found) : "nothing (missing)");
}

// "modules.mem.banks" = 8 -> "banks-8"
std::string label(const std::string& path, const json& v) {
  std::string last = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
  std::string val = v.is_string() ? v.get<std::string>() : v.dump();
  std::string s = last + "-" + val;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
  return s.substr(0, 40);
}

// Throws input_error at `path` of `file` when `text` holds a control character (newline,
// tab, escape, NUL ...): a value a point needs never does, and a newline would become a line
// of its own wherever the value is written out. `expected` says what the value is.
void refuse_control_chars(const std::string& file, const std::string& path, const std::string& expected,
                          const std::string& text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f)
      throw input_error(file, path, expected + " without control characters",
                        excerpt(text) + ", with " + excerpt(std::string(1, static_cast<char>(c))) +
                            " at character " + std::to_string(i + 1));
  }
}

constexpr std::size_t max_points = 100000;
constexpr std::size_t max_name = 64;

// A sweep's name names its folder (sweep-NAME under the output root) and its Slurm job, so it
// is held to the characters of scenario names: it never leaves the output root and never
// reaches a shell.
void check_name(const std::string& file, const std::string& name, bool from_file_name) {
  const std::string where = from_file_name ? "(the sweep's name, from its file name; or give \"name\")" : "name";
  const std::string expected =
      "letters, digits, '_', '-' or '.' (at most " + std::to_string(max_name) + "; it names the output folder and the Slurm job)";
  const std::string bad = unsafe_name_char(name);
  if (!bad.empty()) throw input_error(file, where, expected, excerpt(name) + ", with " + bad);
  if (name.empty() || name.size() > max_name || name == "." || name == ".." || name[0] == '-')
    throw input_error(file, where, expected + ", not empty, '.', '..' or starting with '-'", excerpt(name));
}

// The strings of the array at `key` of `d`, when it has one: `expected` says what the array
// is, `item` what each entry is, `what` what its text is (it holds no control character).
std::vector<std::string> string_list(const std::string& file, const json& d, const std::string& key,
                                     const std::string& expected, const std::string& item, const std::string& what) {
  std::vector<std::string> r;
  if (!d.contains(key)) return r;
  const json& list = d[key];
  if (!list.is_array()) bad(file, key, expected, &list);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) bad(file, index_path(key, i), item, &list[i]);
    const std::string text = list[i].get<std::string>();
    refuse_control_chars(file, index_path(key, i), what, text);
    r.push_back(text);
  }
  return r;
}

// Every key of the sweep file is one a sweep has.
void check_keys(const std::string& file, const json& d) {
  static const std::vector<std::string> keys = {"name", "description", "base", "sets", "mode", "axes", "metrics"};
  reject_unknown_keys(d, keys, "", "a sweep key (name, description, base, sets, mode, axes, metrics)", file);
}

// The axes, each a dotted scenario path and its values; in "zip" mode all as long as the first.
std::vector<axis> read_axes(const std::string& file, const json& d, const std::string& mode) {
  if (!d.contains("axes") || !d["axes"].is_array() || d["axes"].empty())
    bad(file, "axes", "a non-empty array of {\"path\", \"values\"}", d.contains("axes") ? &d["axes"] : nullptr);
  std::vector<axis> axes;
  for (std::size_t i = 0; i < d["axes"].size(); ++i) {
    const json& a = d["axes"][i];
    const std::string p = index_path("axes", i);
    if (!a.is_object() || !a.contains("path") || !a["path"].is_string())
      bad(file, p + ".path", "a dotted scenario path (\"modules.mem.banks\")", a.is_object() && a.contains("path") ? &a["path"] : nullptr);
    const std::string path = a["path"].get<std::string>();
    if (path.empty()) throw input_error(file, p + ".path", "a dotted scenario path", "an empty string");
    refuse_control_chars(file, p + ".path", "a dotted scenario path", path);
    if (!a.contains("values") || !a["values"].is_array() || a["values"].empty())
      bad(file, p + ".values", "a non-empty array of values", a.contains("values") ? &a["values"] : nullptr);
    axes.push_back({path, {}});
    axes.back().values.reserve(a["values"].size());
    for (auto& v : a["values"]) axes.back().values.push_back(std::move(v));
  }
  if (mode == "zip")
    for (std::size_t i = 1; i < axes.size(); ++i)
      if (axes[i].values.size() != axes[0].values.size())
        throw input_error(file, index_path("axes", i) + ".values",
                          std::to_string(axes[0].values.size()) + " values (zip: as many as axes[0])",
                          std::to_string(axes[i].values.size()) + " values");
  return axes;
}

// How many points the axes make; throws input_error for more than max_points.
// Counted without overflow: a grid's product is bounded before it is multiplied.
std::size_t point_count(const std::string& file, const std::vector<axis>& axes, const std::string& mode) {
  std::size_t count = mode == "zip" ? axes[0].values.size() : 1;
  bool more = count > max_points;
  if (mode == "grid")
    for (const auto& a : axes) {
      if (more || count > max_points / a.values.size()) {
        more = true;
        break;
      }
      count *= a.values.size();
    }
  if (more || count > max_points) {
    long double product = 1;  // for the message only
    if (mode == "grid")
      for (const auto& a : axes) product *= static_cast<long double>(a.values.size());
    else
      product = static_cast<long double>(count);
    std::ostringstream found;
    found << std::setprecision(product < 1e15L ? 15 : 3) << product << " points";
    throw input_error(file, "axes", "at most " + std::to_string(max_points) + " points", found.str());
  }
  return count;
}

// Point k of the axes (grid: the last axis fastest; zip: the k-th value of each), named by
// its index and axis values.
point make_point(const std::vector<axis>& axes, const std::string& mode, std::size_t k) {
  point pt;
  pt.index = k;
  std::size_t rest = k;
  std::vector<std::size_t> idx(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {
    if (mode == "zip") {
      idx[a] = k;
    } else {
      idx[a] = rest % axes[a].values.size();
      rest /= axes[a].values.size();
    }
  }
  std::ostringstream name;
  name << std::setw(4) << std::setfill('0') << k;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    pt.at.emplace_back(axes[a].path, axes[a].values[idx[a]]);
    name << "_" << label(axes[a].path, axes[a].values[idx[a]]);
  }
  pt.name = name.str();
  if (pt.name.size() > 120)  // (many axes: a folder name of bounded length, still one per point)
    pt.name = pt.name.substr(0, 100) + "_" + fnv1a64_hex(pt.name).substr(0, 8);
  return pt;
}

}  // namespace

sweep_spec parse_sweep(const std::string& file, const std::string& text) {
  json d = parse_json_text(file, text);
  if (!d.is_object()) bad(file, "(top level)", "an object", &d);
  check_keys(file, d);
  sweep_spec s;
  s.file = file;
  s.text = text;
  if (!d.contains("base") || !d["base"].is_string())
    bad(file, "base", "the base scenario file (relative to the sweep file)", d.contains("base") ? &d["base"] : nullptr);
  fs::path base = d["base"].get<std::string>();
  refuse_control_chars(file, "base", "a scenario file path", base.string());
  if (base.is_relative()) base = fs::path(file).parent_path() / base;
  s.base = base.lexically_normal().string();
  s.base_absolute = fs::absolute(base).lexically_normal().string();
  if (d.contains("name") && !d["name"].is_string()) bad(file, "name", "a string", &d["name"]);
  s.name = d.contains("name") ? d["name"].get<std::string>() : fs::path(file).stem().string();
  check_name(file, s.name, !d.contains("name"));
  if (d.contains("description") && !d["description"].is_string()) bad(file, "description", "a string", &d["description"]);
  s.sets = string_list(file, d, "sets", "an array of \"PATH=VALUE\" overrides", "a \"PATH=VALUE\" string",
                       "a \"PATH=VALUE\" override");
  const std::string modes = "\"grid\" (every combination) or \"zip\" (lists in step)";
  if (d.contains("mode") && !d["mode"].is_string()) bad(file, "mode", modes, &d["mode"]);
  const std::string mode = d.contains("mode") ? d["mode"].get<std::string>() : "grid";
  if (mode != "grid" && mode != "zip") bad(file, "mode", modes, &d["mode"]);
  s.axes = read_axes(file, d, mode);
  s.metrics = string_list(file, d, "metrics", "an array of statistics (\"cycles\", \"top.mem.bank_conflicts\")",
                          "a statistic name", "a statistic name");
  const std::size_t count = point_count(file, s.axes, mode);
  for (std::size_t k = 0; k < count; ++k) s.points.push_back(make_point(s.axes, mode, k));
  return s;
}

// An axis or `sets` value as the point's run takes it: a relative file named at a workload's
// file key (workload.kernel, workload.ptx, workload.program) is relative to the sweep file,
// like `base`, and is passed on relative to where the sweep runs (absolute for Slurm).
json point_value(const sweep_spec& s, const std::string& path, const json& v, bool absolute) {
  if (!v.is_string() || (path != "workload.kernel" && path != "workload.ptx" && path != "workload.program")) return v;
  const fs::path f(v.get<std::string>());
  if (f.empty() || f.is_absolute()) return v;
  const fs::path at = fs::path(s.file).parent_path() / f;
  return (absolute ? fs::absolute(at) : at).lexically_normal().string();
}

// The command line of one point's run. Local runs name the base scenario and the folder as
// given (relative ones stay relative in the point's provenance.json); Slurm tasks may start
// elsewhere, so they get absolute paths.
std::vector<std::string> run_args(const sweep_spec& s, const point& pt, const std::string& outdir,
                                  bool absolute) {
  std::vector<std::string> a = {"run", absolute ? s.base_absolute : s.base, "--quiet", "--outdir",
                                outdir};
  for (const auto& set : s.sets) {
    a.push_back("--set");
    a.push_back(set);
  }
  for (const auto& [path, v] : pt.at) {
    a.push_back("--set");
    a.push_back(path + "=" + point_value(s, path, v, absolute).dump());
  }
  return a;
}

// "point 0003_banks-8 (axes[0] modules.mem.banks=8)": which point, and which sweep entries
// made it.
std::string point_where(const point& pt) {
  std::string w = "point " + pt.name + " (";
  for (std::size_t a = 0; a < pt.at.size(); ++a)
    w += (a ? ", " : "") + index_path("axes", a) + " " + pt.at[a].first + "=" +
         pt.at[a].second.dump();
  return w + ")";
}

}  // namespace flynn::sweep_detail
