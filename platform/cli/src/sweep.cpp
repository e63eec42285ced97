// flynn sweep: a base scenario plus parameter axes, one run (and output folder) per point,
// locally on all cores or as a Slurm job array, results collected into one table.
#include "flynn/platform/sweep.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "flynn/platform/errors.h"
#include "flynn/common/registry.h"
#include "flynn/platform/output.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/scenario.h"
#include "flynn/platform/temp_file.h"

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
  std::string file, text, name;   // text: the sweep file as read
  std::string base;               // the base scenario (relative if the sweep file's path is)
  std::string base_absolute;      // the same, absolute (for Slurm jobs)
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
  s.base = base.lexically_normal().string();
  s.base_absolute = fs::absolute(base).lexically_normal().string();
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

// --------------------------------------------------------------------------- checking points
// Every point is elaborated before anything runs: its overrides applied to the base
// scenario, every module built with its parameters, the bindings made and the workload
// assembled, exactly as its run will do, but nothing is simulated. That yields, per point,
// bad input (with its location), the fingerprint its run will record (see make_run_record)
// and the statistics its modules declare (they are declared when the modules are built), so
// that metrics are checked against what the points will really write. SystemC elaborates
// one platform per process, so each point is checked in a forked child.

struct point_check {
  std::string fingerprint;
  std::vector<std::string> statistics;  // top-level stats.json keys and INSTANCE.STATISTIC
  int status = 0;                       // 0 valid, 2 bad input, else an internal failure
  std::string error;
};

// Top-level stats.json keys a metric may name (see cmd_run).
const std::vector<std::string> top_level_stats = {"scenario", "result", "cycles", "sim_time_ns",
                                                  "checks"};

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// In the child: checks one point and writes a JSON answer to `fd`; never returns.
[[noreturn]] void check_point_child(const sweep_spec& s, const point& pt, int fd) {
  json answer;
  int status = 0;
  try {
    scenario_doc sd = load_scenario_doc(s.base);
    for (const auto& set : s.sets) apply_override(sd, set);
    for (const auto& [path, v] : pt.at) apply_override(sd, path + "=" + point_value(s, path, v, false).dump());
    module_registry reg;
    register_builtin_modules(reg);
    platform p(sd, reg);
    const run_record record = make_run_record(p, sd, p.spec().max_cycles);
    std::vector<std::string> names = top_level_stats;
    if (p.runs_program()) names.push_back("instructions");
    for (auto* m : p.modules())
      for (const auto& e : m->stats().entries())
        names.push_back(std::string(m->name()) + "." + e.name);
    answer = {{"fingerprint", record.fingerprint}, {"statistics", names}};
  } catch (const input_error& e) {
    answer = {{"error", e.what()}};
    status = 2;
  } catch (const sc_core::sc_report& e) {
    // SystemC's own elaboration checks: bad input, as `flynn run` reports them.
    answer = {{"error", e.what()}};
    status = 2;
  } catch (const std::invalid_argument& e) {
    answer = {{"error", e.what()}};
    status = 2;
  } catch (const std::exception& e) {
    answer = {{"error", std::string("internal error: ") + e.what()}};
    status = 1;
  }
  write_all(fd, answer.dump(-1, ' ', false, json::error_handler_t::replace));
  ::_exit(status);
}

point_check answer_of(FILE* f, int wait_status) {
  point_check c;
  std::string text;
  std::rewind(f);
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  const json j = json::parse(text, nullptr, false);
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0 && j.is_object() &&
      j.contains("fingerprint")) {
    c.fingerprint = j["fingerprint"].get<std::string>();
    c.statistics = j["statistics"].get<std::vector<std::string>>();
    return c;
  }
  c.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 1;
  if (c.status == 0) c.status = 1;
  if (j.is_object() && j.contains("error") && j["error"].is_string())
    c.error = j["error"].get<std::string>();
  else if (WIFSIGNALED(wait_status))
    c.error =
        "internal error: the check ended with signal " + std::to_string(WTERMSIG(wait_status));
  else
    c.error = "internal error: the check gave no answer";
  return c;
}

// Checks every point, `jobs` at a time. Throws input_error for the first point (in point
// order) that is bad input.
std::vector<point_check> check_points(const sweep_spec& s, unsigned jobs) {
  std::vector<point_check> checks(s.points.size());
  std::map<pid_t, std::pair<std::size_t, FILE*>> running;
  std::size_t next = 0;
  bool stop = false;  // after a failure nothing new starts; those running finish
  while ((!stop && next < s.points.size()) || !running.empty()) {
    while (!stop && next < s.points.size() && running.size() < jobs) {
      FILE* f = anonymous_temp_file();  // in $TMPDIR, already unlinked: nothing is left behind
      if (!f)
        throw std::runtime_error(std::string("sweep: cannot create a temporary file: ") +
                                 std::strerror(errno));
      std::cout.flush();
      std::cerr.flush();
      std::fflush(nullptr);  // nothing buffered is written twice
      const pid_t pid = ::fork();
      if (pid < 0) {
        std::fclose(f);
        throw std::runtime_error(std::string("sweep: cannot start a process: ") +
                                 std::strerror(errno));
      }
      if (pid == 0) {
        // The check's own output (SystemC's messages) would repeat once per point.
        const int null = ::open("/dev/null", O_WRONLY);
        if (null >= 0) {
          ::dup2(null, 1);
          ::dup2(null, 2);
        }
        check_point_child(s, s.points[next], ::fileno(f));
      }
      running[pid] = {next++, f};
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const auto [index, f] = it->second;
    running.erase(it);
    checks[index] = answer_of(f, status);
    std::fclose(f);
    if (checks[index].status != 0) stop = true;
  }
  // Points start in order, so the first failure among those checked is the first of all.
  for (std::size_t k = 0; k < checks.size(); ++k) {
    if (checks[k].status == 0) continue;
    const std::string where = s.file + ": " + point_where(s.points[k]) + ": ";
    if (checks[k].status == 2) throw input_error(where + checks[k].error);
    throw std::runtime_error(where + checks[k].error);
  }
  return checks;
}

// A metric must name a statistic that at least one point writes (some may exist in part of
// a sweep only, when an axis changes the modules).
void check_metrics(const sweep_spec& s, const std::vector<point_check>& checks) {
  std::set<std::string> known;
  for (const auto& c : checks) known.insert(c.statistics.begin(), c.statistics.end());
  for (std::size_t i = 0; i < s.metrics.size(); ++i) {
    const std::string& m = s.metrics[i];
    if (known.count(m)) continue;
    const std::string hint = did_you_mean(m, std::vector<std::string>(known.begin(), known.end()));
    throw input_error(
        s.file, index_path("metrics", i),
        "a statistic the points write: cycles, sim_time_ns, instructions or INSTANCE.STATISTIC "
        "(as in stats.json, e.g. top.mem.bank_conflicts)" +
            (hint.empty() ? "" : "; " + hint),
        "'" + m + "', which no point has");
  }
}

// --------------------------------------------------------------------------- running points

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

// A finished point is current when its run recorded the fingerprint its point has now:
// the same resolved configuration and the same contents of every file it reads.
enum class point_state { current, stale, absent };

point_state state_of(const std::string& dir, const point_check& c) {
  if (!finished(dir)) return point_state::absent;
  return recorded_fingerprint(dir) == c.fingerprint ? point_state::current : point_state::stale;
}

// Starts `flynn run ...` for one point; its output goes to LOG.
pid_t spawn(const std::string& exe, const std::vector<std::string>& args, const std::string& log) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
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

// Why a point has no results: the run's exit status (when this sweep ran it) and the last
// error line of its log.
std::string failure_message(const std::string& log, const int* wait_status) {
  std::string msg;
  if (wait_status) {
    if (WIFSIGNALED(*wait_status))
      msg = "killed by signal " + std::to_string(WTERMSIG(*wait_status));
    else if (WIFEXITED(*wait_status))
      msg = "exit status " + std::to_string(WEXITSTATUS(*wait_status));
  }
  std::ifstream in(log);
  std::string line, last, last_error;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    last = line;
    if (line.rfind("flynn: ", 0) == 0) last_error = line;
  }
  const std::string detail = last_error.empty() ? last : last_error;
  if (!detail.empty()) msg += (msg.empty() ? "" : ": ") + detail.substr(0, 500);
  return msg.empty() ? "no results (see its log)" : msg;
}

// The table: one row per point with its axis values, status, metrics and message.
// `ran`: the wait status of each point this invocation ran (point index -> status).
int collect(const sweep_spec& s, const std::vector<point_check>& checks, const std::string& out,
            bool quiet, const std::map<std::size_t, int>& ran = {}) {
  std::vector<std::string> columns = {"point", "folder"};
  for (const auto& a : s.axes) columns.push_back(a.path);
  for (const char* c : {"result", "cycles", "instructions", "sim_time_ns"}) columns.push_back(c);
  for (const auto& m : s.metrics)
    if (std::find(columns.begin(), columns.end(), m) == columns.end()) columns.push_back(m);
  if (std::find(columns.begin(), columns.end(), "message") == columns.end())
    columns.push_back("message");
  const std::size_t first_stat = 2 + s.axes.size();
  json rows = json::array();
  std::size_t ok = 0, missing = 0, failed = 0, stale = 0;
  for (const auto& pt : s.points) {
    const std::string dir = out + "/points/" + pt.name, log = dir + ".log";
    json row = json::object();
    row["point"] = pt.index;
    row["folder"] = "points/" + pt.name;
    for (const auto& [path, v] : pt.at) row[path] = v;
    for (std::size_t c = first_stat; c < columns.size(); ++c) row[columns[c]] = nullptr;
    row["message"] = "";
    const auto r = ran.find(pt.index);
    switch (state_of(dir, checks[pt.index])) {
      case point_state::current: {
        std::ifstream in(dir + "/stats.json");
        const json st = json::parse(in, nullptr, false);
        for (std::size_t c = first_stat; c < columns.size(); ++c)
          if (columns[c] != "message") row[columns[c]] = metric(st, columns[c]);
        if (st.is_object() && st.contains("message") && st["message"].is_string())
          row["message"] = st["message"];
        if (!row["result"].is_string()) {
          row["result"] = "failed";
          row["message"] = "unreadable stats.json";
        }
        if (row["result"] == "ok")
          ++ok;
        else
          ++failed;
        break;
      }
      case point_state::stale:
        row["result"] = "stale";
        row["message"] =
            "its results are from an earlier configuration or earlier input files (fingerprint " +
            recorded_fingerprint(dir) + ", now " + checks[pt.index].fingerprint +
            "); the next run of the sweep runs it again";
        ++stale;
        break;
      case point_state::absent:
        if (r != ran.end() || fs::exists(log)) {
          row["result"] = "failed";
          row["message"] = failure_message(log, r != ran.end() ? &r->second : nullptr);
          ++failed;
        } else {
          row["result"] = "missing";
          ++missing;
        }
        break;
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
  std::error_code ec;
  const fs::path base_rel = fs::relative(fs::absolute(s.base, ec), fs::absolute(out, ec), ec);
  write_file_atomic(out + "/results.csv", csv.str());
  write_file_atomic(out + "/results.json",
                    json{{"sweep", s.name},
                         {"base", ec ? s.base : base_rel.string()},
                         {"columns", columns},
                         {"rows", rows}}
                            .dump(2, ' ', false, json::error_handler_t::replace) +
                        "\n");
  if (!quiet)
    std::cout << "sweep " << s.name << ": " << s.points.size() << " points, " << ok << " ok, "
              << failed << " failed, " << missing << " not run"
              << (stale ? ", " + std::to_string(stale) +
                              " stale (their configuration or inputs changed)"
                        : "")
              << "; table: " << fs::absolute(out).lexically_normal().string() << "/results.csv\n";
  return ok == s.points.size() ? 0 : 1;
}

int run_local(const sweep_spec& s, const std::vector<point_check>& checks, const std::string& out,
              unsigned jobs, bool quiet) {
  const std::string exe = self_path();
  std::vector<const point*> todo;
  std::size_t kept = 0;
  for (const auto& pt : s.points) {
    const std::string dir = out + "/points/" + pt.name;
    const point_state st = state_of(dir, checks[pt.index]);
    if (st == point_state::current) {
      ++kept;
      continue;
    }
    // Stale results are of no use any more: removed, so that a run that fails now is not
    // mistaken for them.
    if (st == point_state::stale) fs::remove_all(dir);
    todo.push_back(&pt);
  }
  const bool tty = isatty(2) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::map<pid_t, const point*> running;
  std::map<std::size_t, int> ran;
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
      running[spawn(exe, run_args(s, pt, dir, false), dir + ".log")] = &pt;
    }
    progress(false);
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      break;
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    ran[it->second->index] = status;
    running.erase(it);
    ++done;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  progress(true);
  return collect(s, checks, out, quiet, ran);
}

int submit_slurm(const sweep_spec& s, const std::vector<point_check>& checks,
                 const std::string& out, const std::string& sbatch_opts, bool quiet) {
  const std::string exe = self_path(), dir = out + "/slurm";
  fs::create_directories(dir);
  std::ostringstream cmds;
  std::size_t n = 0;
  for (const auto& pt : s.points) {
    const std::string pdir = fs::absolute(out + "/points/" + pt.name).string();
    // Resumable: current points are kept; stale ones run again (their run replaces them).
    if (state_of(pdir, checks[pt.index]) == point_state::current) continue;
    std::string line = shell_quote(exe);
    for (const auto& a : run_args(s, pt, pdir, true)) line += " " + shell_quote(a);
    cmds << line << " >" << shell_quote(pdir + ".log") << " 2>&1\n";
    ++n;
  }
  if (n == 0) {
    if (!quiet) std::cout << "sweep " << s.name << ": every point has finished; nothing to submit\n";
    return collect(s, checks, out, quiet);
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
  std::cout.flush();
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
  std::string file, out, out_root, sbatch;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool slurm = false, collect_only = false, quiet = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw input_error("command line: sweep: " + a + " needs a value");
      return args[++i];
    };
    if (a == "--outdir" || a == "--out") out = value();
    else if (a == "--out-root") out_root = value();
    else if (a == "--jobs" || a == "-j") {
      const std::string& v = value();
      if (v.empty() || v.size() > 4 || v.find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(v) < 1 || std::stoul(v) > 4096)
        throw input_error("command line: sweep: --jobs: expected 1 .. 4096, found '" + v + "'");
      jobs = static_cast<unsigned>(std::stoul(v));
    } else if (a == "--slurm") slurm = true;
    else if (a == "--sbatch") sbatch = value();
    else if (a == "--collect") collect_only = true;
    else if (a == "--quiet" || a == "-q") quiet = true;
    else if (!a.empty() && a[0] == '-') throw input_error("command line: sweep: unknown option '" + a + "' (see flynn sweep --help)");
    else if (file.empty()) file = a;
    else throw input_error("command line: sweep: one SWEEP file expected, found also '" + a + "'");
  }
  if (file.empty()) throw input_error("command line: sweep: expected a SWEEP file");
  const sweep_spec s = parse(file);
  if (out.empty()) out = output_root(out_root) + "/sweep-" + s.name;
  if (fs::exists(out) && !fs::exists(out + "/sweep.json"))
    throw input_error("command line: --outdir: '" + out + "' exists and is not a sweep folder (no sweep.json)");
  // Bad input in any point, or a metric no point has, stops the sweep before anything runs
  // or is written.
  const std::vector<point_check> checks = check_points(s, jobs);
  check_metrics(s, checks);
  fs::create_directories(out + "/points");
  write_file_atomic(out + "/sweep.json", s.text);
  if (collect_only) return collect(s, checks, out, quiet);
  if (slurm) return submit_slurm(s, checks, out, sbatch, quiet);
  return run_local(s, checks, out, jobs, quiet);
}

}  // namespace flynn
