// flynn sweep: a base scenario plus parameter axes, one run (and output folder) per point,
// locally on all cores or as a Slurm job array, results collected into one table.
#include "flynn/platform/sweep.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "flynn/platform/errors.h"
#include "flynn/common/registry.h"
#include "flynn/platform/output.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/scenario.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace flynn {

namespace {

struct axis {
  std::string path;
  std::vector<json> values;
};

struct point {
  std::size_t index = 0;
  std::string name;                              // folder name under points/
  std::vector<std::pair<std::string, json>> at;  // path -> value
};

struct sweep_spec {
  std::string file, text, name, base;  // text: the sweep file as read
  std::vector<std::string> sets;  // fixed overrides of every point
  std::vector<axis> axes;
  std::vector<std::string> metrics;
  std::vector<point> points;
};

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

sweep_spec parse(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw input_error(file + ": cannot open the sweep file");
  std::stringstream read;
  read << in.rdbuf();
  const std::string text = read.str();
  json d = parse_json_text(file, text);
  if (!d.is_object()) bad(file, "(top level)", "an object", &d);
  static const std::vector<std::string> keys = {"name", "description", "base", "sets", "mode", "axes", "metrics"};
  for (auto it = d.begin(); it != d.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      const std::string hint = did_you_mean(it.key(), keys);
      throw input_error(file, it.key(), "a sweep key (name, description, base, sets, mode, axes, metrics)" +
                                            (hint.empty() ? "" : "; " + hint),
                        "unknown key '" + it.key() + "'");
    }
  sweep_spec s;
  s.file = file;
  s.text = text;
  if (!d.contains("base") || !d["base"].is_string())
    bad(file, "base", "the base scenario file (relative to the sweep file)", d.contains("base") ? &d["base"] : nullptr);
  fs::path base = d["base"].get<std::string>();
  if (base.is_relative()) base = fs::path(file).parent_path() / base;
  std::error_code exists_ec;
  if (!fs::exists(base, exists_ec)) throw input_error(file, "base", "an existing scenario file", "'" + base.string() + "'");
  s.base = fs::absolute(base).lexically_normal().string();
  s.name = d.contains("name") && d["name"].is_string() ? d["name"].get<std::string>() : fs::path(file).stem().string();
  if (d.contains("sets")) {
    if (!d["sets"].is_array()) bad(file, "sets", "an array of \"PATH=VALUE\" overrides", &d["sets"]);
    for (std::size_t i = 0; i < d["sets"].size(); ++i) {
      if (!d["sets"][i].is_string()) bad(file, index_path("sets", i), "a \"PATH=VALUE\" string", &d["sets"][i]);
      s.sets.push_back(d["sets"][i].get<std::string>());
    }
  }
  const std::string mode = d.contains("mode") && d["mode"].is_string() ? d["mode"].get<std::string>() : "grid";
  if (mode != "grid" && mode != "zip") bad(file, "mode", "\"grid\" (every combination) or \"zip\" (lists in step)", &d["mode"]);
  if (!d.contains("axes") || !d["axes"].is_array() || d["axes"].empty())
    bad(file, "axes", "a non-empty array of {\"path\", \"values\"}", d.contains("axes") ? &d["axes"] : nullptr);
  for (std::size_t i = 0; i < d["axes"].size(); ++i) {
    const json& a = d["axes"][i];
    const std::string p = index_path("axes", i);
    if (!a.is_object() || !a.contains("path") || !a["path"].is_string())
      bad(file, p + ".path", "a dotted scenario path (\"modules.mem.banks\")", a.is_object() && a.contains("path") ? &a["path"] : nullptr);
    if (!a.contains("values") || !a["values"].is_array() || a["values"].empty())
      bad(file, p + ".values", "a non-empty array of values", a.contains("values") ? &a["values"] : nullptr);
    s.axes.push_back({a["path"].get<std::string>(), a["values"].get<std::vector<json>>()});
  }
  if (mode == "zip")
    for (std::size_t i = 1; i < s.axes.size(); ++i)
      if (s.axes[i].values.size() != s.axes[0].values.size())
        throw input_error(file, index_path("axes", i) + ".values",
                          std::to_string(s.axes[0].values.size()) + " values (zip: as many as axes[0])",
                          std::to_string(s.axes[i].values.size()) + " values");
  if (d.contains("metrics")) {
    if (!d["metrics"].is_array()) bad(file, "metrics", "an array of statistics (\"cycles\", \"top.mem.bank_conflicts\")", &d["metrics"]);
    for (std::size_t i = 0; i < d["metrics"].size(); ++i) {
      if (!d["metrics"][i].is_string()) bad(file, index_path("metrics", i), "a statistic name", &d["metrics"][i]);
      s.metrics.push_back(d["metrics"][i].get<std::string>());
    }
  }
  // Points: grid (the last axis fastest) or zip.
  std::size_t count = mode == "zip" ? s.axes[0].values.size() : 1;
  if (mode == "grid")
    for (const auto& a : s.axes) count *= a.values.size();
  if (count > 100000) throw input_error(file, "axes", "at most 100000 points", std::to_string(count) + " points");
  for (std::size_t k = 0; k < count; ++k) {
    point pt;
    pt.index = k;
    std::size_t rest = k;
    std::vector<std::size_t> idx(s.axes.size());
    for (std::size_t a = s.axes.size(); a-- > 0;) {
      if (mode == "zip") {
        idx[a] = k;
      } else {
        idx[a] = rest % s.axes[a].values.size();
        rest /= s.axes[a].values.size();
      }
    }
    std::ostringstream name;
    name << std::setw(4) << std::setfill('0') << k;
    for (std::size_t a = 0; a < s.axes.size(); ++a) {
      pt.at.emplace_back(s.axes[a].path, s.axes[a].values[idx[a]]);
      name << "_" << label(s.axes[a].path, s.axes[a].values[idx[a]]);
    }
    pt.name = name.str();
    s.points.push_back(std::move(pt));
  }
  // Every point must apply to the base scenario (paths and values), and the first must make
  // a valid platform (module parameters, bindings, workload), before anything runs.
  scenario_doc sd = load_scenario_doc(s.base);
  for (const auto& set : s.sets) apply_override(sd, set);
  for (const auto& pt : s.points) {
    scenario_doc x = sd;
    for (const auto& [path, v] : pt.at) apply_override(x, path + "=" + v.dump());
    if (pt.index == 0) {
      module_registry reg;
      register_builtin_modules(reg);
      platform check(x, reg);
    }
  }
  return s;
}

std::vector<std::string> run_args(const sweep_spec& s, const point& pt, const std::string& outdir) {
  std::vector<std::string> a = {"run", s.base, "--quiet", "--outdir", outdir};
  for (const auto& set : s.sets) {
    a.push_back("--set");
    a.push_back(set);
  }
  for (const auto& [path, v] : pt.at) {
    a.push_back("--set");
    a.push_back(path + "=" + v.dump());
  }
  return a;
}

std::string self_path() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "flynn" : p.string();
}

std::string shell_quote(const std::string& x) {
  std::string q = "'";
  for (char c : x) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

bool finished(const std::string& dir) {
  return fs::exists(dir + "/.flynn-output") && fs::exists(dir + "/stats.json");
}

// Starts `flynn run ...` for one point; its output goes to LOG.
pid_t spawn(const std::string& exe, const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
    close(fd);
  }
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(exe.c_str(), argv.data());
  _exit(127);
}

// Value of a metric from a point's stats.json: a top-level key or "module.stat".
json metric(const json& stats, const std::string& m) {
  if (stats.contains(m)) return stats[m];
  const auto dot = m.rfind('.');
  if (dot == std::string::npos || !stats.contains("modules")) return nullptr;
  const std::string mod = m.substr(0, dot), st = m.substr(dot + 1);
  if (stats["modules"].contains(mod) && stats["modules"][mod].contains(st)) {
    const json& v = stats["modules"][mod][st];
    return v.is_object() && v.contains("value") ? v["value"] : v;
  }
  return nullptr;
}

std::string csv_cell(const json& v) {
  if (v.is_null()) return "";
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n") != std::string::npos) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  return s;
}

// The table: one row per point with its axis values, result and metrics.
int collect(const sweep_spec& s, const std::string& out, bool quiet) {
  std::vector<std::string> columns = {"point", "folder"};
  for (const auto& a : s.axes) columns.push_back(a.path);
  for (const char* c : {"result", "cycles", "instructions", "sim_time_ns"}) columns.push_back(c);
  for (const auto& m : s.metrics)
    if (std::find(columns.begin(), columns.end(), m) == columns.end()) columns.push_back(m);
  json rows = json::array();
  std::size_t missing = 0, failed = 0;
  for (const auto& pt : s.points) {
    const std::string dir = out + "/points/" + pt.name;
    json row = json::object();
    row["point"] = pt.index;
    row["folder"] = "points/" + pt.name;
    for (const auto& [path, v] : pt.at) row[path] = v;
    if (finished(dir)) {
      std::ifstream in(dir + "/stats.json");
      const json st = json::parse(in, nullptr, false);
      for (std::size_t c = 2 + s.axes.size(); c < columns.size(); ++c) row[columns[c]] = metric(st, columns[c]);
      if (row["result"] != "ok") ++failed;
    } else {
      row["result"] = fs::exists(out + "/points/" + pt.name + ".log") ? "failed" : "missing";
      ++(row["result"] == "missing" ? missing : failed);
    }
    rows.push_back(row);
  }
  std::ostringstream csv;
  for (std::size_t c = 0; c < columns.size(); ++c) csv << (c ? "," : "") << csv_cell(columns[c]);
  csv << "\n";
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c) csv << (c ? "," : "") << csv_cell(row.value(columns[c], json()));
    csv << "\n";
  }
  write_file_atomic(out + "/results.csv", csv.str());
  write_file_atomic(out + "/results.json",
               json{{"sweep", s.name}, {"base", s.base}, {"columns", columns}, {"rows", rows}}.dump(2) + "\n");
  if (!quiet)
    std::cout << "sweep " << s.name << ": " << s.points.size() << " points, " << (s.points.size() - missing - failed)
              << " ok, " << failed << " failed, " << missing << " not run; table: " << out << "/results.csv\n";
  return failed ? 1 : missing ? 1 : 0;
}

int run_local(const sweep_spec& s, const std::string& out, unsigned jobs, bool quiet) {
  const std::string exe = self_path();
  std::vector<const point*> todo;
  std::size_t kept = 0;
  for (const auto& pt : s.points) {
    if (finished(out + "/points/" + pt.name)) ++kept;
    else todo.push_back(&pt);
  }
  const bool tty = isatty(2) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::map<pid_t, const point*> running;
  std::size_t next = 0, done = 0, failed = 0;
  auto progress = [&](bool last) {
    if (!tty || quiet) return;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "\rsweep " << s.name << ": " << done + kept << "/" << s.points.size() << " done (" << kept
              << " kept), " << running.size() << " running, " << failed << " failed, " << std::fixed
              << std::setprecision(1) << el << " s   " << (last ? "\n" : "") << std::flush;
  };
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < jobs) {
      const point& pt = *todo[next++];
      const std::string dir = out + "/points/" + pt.name;
      running[spawn(exe, run_args(s, pt, dir), dir + ".log")] = &pt;
    }
    progress(false);
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    if (running.erase(pid)) {
      ++done;
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
    }
  }
  progress(true);
  return collect(s, out, quiet);
}

int submit_slurm(const sweep_spec& s, const std::string& out, const std::string& sbatch_opts, bool quiet) {
  const std::string exe = self_path(), dir = out + "/slurm";
  fs::create_directories(dir);
  std::ostringstream cmds;
  std::size_t n = 0;
  for (const auto& pt : s.points) {
    const std::string pdir = fs::absolute(out + "/points/" + pt.name).string();
    if (finished(pdir)) continue;  // resumable: finished points are kept
    std::string line = shell_quote(exe);
    for (const auto& a : run_args(s, pt, pdir)) line += " " + shell_quote(a);
    cmds << line << " >" << shell_quote(pdir + ".log") << " 2>&1\n";
    ++n;
  }
  if (n == 0) {
    if (!quiet) std::cout << "sweep " << s.name << ": every point has finished; nothing to submit\n";
    return collect(s, out, quiet);
  }
  const std::string adir = fs::absolute(dir).string();
  write_file_atomic(dir + "/points.sh", cmds.str());
  std::ostringstream job;
  job << "#!/bin/bash\n"
      << "#SBATCH --job-name=flynn-" << s.name << "\n"
      << "#SBATCH --array=0-" << n - 1 << "\n"
      << "#SBATCH --output=" << adir << "/task-%a.out\n"
      << "# One flynn run per array task: line SLURM_ARRAY_TASK_ID + 1 of points.sh.\n"
      << "export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1\n"
      << "eval \"$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" " << shell_quote(adir + "/points.sh") << ")\"\n";
  write_file_atomic(dir + "/job.sh", job.str());
  const std::string cmd = "sbatch --parsable " + sbatch_opts + " " + shell_quote(adir + "/job.sh");
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run sbatch");
  std::string id;
  char buf[256];
  while (fgets(buf, sizeof buf, p)) id += buf;
  const int rc = pclose(p);
  while (!id.empty() && (id.back() == '\n' || id.back() == '\r')) id.pop_back();
  if (rc != 0) {
    std::cerr << "flynn: sweep: sbatch failed (" << cmd << ")\n";
    return 1;
  }
  write_file_atomic(dir + "/job_id", id + "\n");
  if (!quiet)
    std::cout << "sweep " << s.name << ": submitted " << n << " points as Slurm job array " << id
              << "; when it has finished: flynn sweep " << s.file << " --outdir " << out << " --collect\n";
  return 0;
}

}  // namespace

int sweep_main(const std::vector<std::string>& args) {
  std::string file, out, sbatch;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool slurm = false, collect_only = false, quiet = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw input_error("command line: sweep: " + a + " needs a value");
      return args[++i];
    };
    if (a == "--outdir" || a == "--out") out = value();
    else if (a == "--jobs" || a == "-j") {
      const std::string& v = value();
      if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || std::stoul(v) < 1 || std::stoul(v) > 4096)
        throw input_error("command line: sweep: --jobs: expected 1 .. 4096, found '" + v + "'");
      jobs = static_cast<unsigned>(std::stoul(v));
    } else if (a == "--slurm") slurm = true;
    else if (a == "--sbatch") sbatch = value();
    else if (a == "--collect") collect_only = true;
    else if (a == "--quiet" || a == "-q") quiet = true;
    else if (!a.empty() && a[0] == '-') throw input_error("command line: sweep: unknown option '" + a + "' (see flynn --help)");
    else if (file.empty()) file = a;
    else throw input_error("command line: sweep: one SWEEP file expected, found also '" + a + "'");
  }
  if (file.empty()) throw input_error("command line: sweep: expected a SWEEP file");
  const sweep_spec s = parse(file);
  if (out.empty()) out = "out/sweep-" + s.name;
  if (fs::exists(out) && !fs::exists(out + "/sweep.json"))
    throw input_error("command line: --outdir: '" + out + "' exists and is not a sweep folder (no sweep.json)");
  fs::create_directories(out + "/points");
  write_file_atomic(out + "/sweep.json", s.text);
  if (collect_only) return collect(s, out, quiet);
  if (slurm) return submit_slurm(s, out, sbatch, quiet);
  return run_local(s, out, jobs, quiet);
}

}  // namespace flynn
