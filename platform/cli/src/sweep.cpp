// flynn sweep: a base scenario plus parameter axes, one run (and output folder) per point,
// locally on all cores or as a Slurm job array, results collected into one table.
#include "flynn/platform/sweep.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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

sweep_spec parse_sweep(const std::string& file, const std::string& text) {
  json d = parse_json_text(file, text);
  if (!d.is_object()) bad(file, "(top level)", "an object", &d);
  static const std::vector<std::string> keys = {"name", "description", "base", "sets", "mode", "axes", "metrics"};
  for (auto it = d.begin(); it != d.end(); ++it)
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      const std::string hint = did_you_mean(it.key(), keys);
      throw input_error(file, it.key(), "a sweep key (name, description, base, sets, mode, axes, metrics)" +
                                            (hint.empty() ? "" : "; " + hint),
                        "unknown key " + excerpt(it.key()));
    }
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
  if (d.contains("sets")) {
    if (!d["sets"].is_array()) bad(file, "sets", "an array of \"PATH=VALUE\" overrides", &d["sets"]);
    for (std::size_t i = 0; i < d["sets"].size(); ++i) {
      if (!d["sets"][i].is_string()) bad(file, index_path("sets", i), "a \"PATH=VALUE\" string", &d["sets"][i]);
      const std::string set = d["sets"][i].get<std::string>();
      refuse_control_chars(file, index_path("sets", i), "a \"PATH=VALUE\" override", set);
      s.sets.push_back(set);
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
    const std::string path = a["path"].get<std::string>();
    if (path.empty()) throw input_error(file, p + ".path", "a dotted scenario path", "an empty string");
    refuse_control_chars(file, p + ".path", "a dotted scenario path", path);
    if (!a.contains("values") || !a["values"].is_array() || a["values"].empty())
      bad(file, p + ".values", "a non-empty array of values", a.contains("values") ? &a["values"] : nullptr);
    s.axes.push_back({path, {}});
    s.axes.back().values.reserve(a["values"].size());
    for (auto& v : a["values"]) s.axes.back().values.push_back(std::move(v));
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
      const std::string m = d["metrics"][i].get<std::string>();
      refuse_control_chars(file, index_path("metrics", i), "a statistic name", m);
      s.metrics.push_back(m);
    }
  }
  // Points: grid (the last axis fastest) or zip.
  // Counted without overflow: a grid's product is bounded before it is multiplied.
  std::size_t count = mode == "zip" ? s.axes[0].values.size() : 1;
  bool more = count > max_points;
  if (mode == "grid")
    for (const auto& a : s.axes) {
      if (more || count > max_points / a.values.size()) {
        more = true;
        break;
      }
      count *= a.values.size();
    }
  if (more || count > max_points) {
    long double product = 1;  // for the message only
    if (mode == "grid")
      for (const auto& a : s.axes) product *= static_cast<long double>(a.values.size());
    else
      product = static_cast<long double>(count);
    std::ostringstream found;
    found << std::setprecision(product < 1e15L ? 15 : 3) << product << " points";
    throw input_error(file, "axes", "at most " + std::to_string(max_points) + " points", found.str());
  }
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
    if (pt.name.size() > 120)  // (many axes: a folder name of bounded length, still one per point)
      pt.name = pt.name.substr(0, 100) + "_" + fnv1a64_hex(pt.name).substr(0, 8);
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

// --------------------------------------------------------------------------- child processes
// Points are checked and run in child processes. A signal that ends the sweep (SIGINT,
// SIGTERM, SIGHUP) ends them too: the handler passes it on to every child the sweep knows
// of, so that waitpid returns, and the sweep then waits for them all and stops. A child whose
// parent dies some other way (SIGKILL) is sent SIGTERM by the kernel (PR_SET_PDEATHSIG).

constexpr std::size_t max_children = 4096;  // --jobs is at most this
volatile sig_atomic_t stop_signal = 0;
volatile pid_t children[max_children];  // 0: a free slot; changed only with the signals blocked
const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

struct interrupted {
  int signal;
};

void on_stop_signal(int sig) {
  stop_signal = sig;
  for (std::size_t i = 0; i < max_children; ++i)
    if (children[i] > 0) ::kill(children[i], sig);
}

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : stop_signals) sigaddset(&set, sig);
  return set;
}

// The sweep's handlers, for its lifetime. No SA_RESTART: waitpid returns EINTR.
class signal_scope {
 public:
  signal_scope() {
    stop_signal = 0;
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (std::size_t i = 0; i < 3; ++i) ::sigaction(stop_signals[i], &sa, &old_[i]);
  }
  ~signal_scope() {
    for (std::size_t i = 0; i < 3; ++i) ::sigaction(stop_signals[i], &old_[i], nullptr);
  }
  signal_scope(const signal_scope&) = delete;
  signal_scope& operator=(const signal_scope&) = delete;

 private:
  struct sigaction old_[3];
};

// Blocks the stop signals while alive (a table and the sweep.json beside it are written as
// one, and the child list changes without the handler seeing half of it).
class signals_blocked {
 public:
  signals_blocked() {
    const sigset_t set = stop_set();
    ::sigprocmask(SIG_BLOCK, &set, &old_);
  }
  ~signals_blocked() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

void set_child(pid_t from, pid_t to) {
  for (std::size_t i = 0; i < max_children; ++i)
    if (children[i] == from) {
      children[i] = to;
      return;
    }
}

// fork() for a check or a run: in the child (0 returned) the stop signals have their
// default action and the child ends with its parent.
pid_t fork_child() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);  // nothing buffered is written twice
  const pid_t parent = ::getpid();
  pid_t pid;
  {
    signals_blocked blocked;
    pid = ::fork();
    if (pid == 0) {
      for (int sig : stop_signals) ::signal(sig, SIG_DFL);
      for (std::size_t i = 0; i < max_children; ++i) children[i] = 0;
      ::prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (::getppid() != parent) ::_exit(1);  // the parent is gone already
    } else if (pid > 0) {
      set_child(0, pid);
    }
  }
  if (pid < 0) throw std::runtime_error(std::string("sweep: cannot start a process: ") + std::strerror(errno));
  if (pid > 0 && stop_signal) ::kill(pid, stop_signal);
  return pid;
}

// Waits for every child the sweep started.
void reap_children() {
  for (std::size_t i = 0; i < max_children; ++i) {
    const pid_t pid = children[i];
    if (pid <= 0) continue;
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    signals_blocked blocked;
    children[i] = 0;
  }
}

// Waits for one child; throws `interrupted` (after waiting for all of them) once a stop
// signal has come. Returns -1 when there is no child.
pid_t wait_child(int& status) {
  while (true) {
    if (stop_signal) {
      reap_children();
      throw interrupted{stop_signal};
    }
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    signals_blocked blocked;
    set_child(pid, 0);
    return pid;
  }
}

// Whatever leaves a loop of children early (an exception) stops and waits for those still
// running.
struct children_guard {
  ~children_guard() {
    for (std::size_t i = 0; i < max_children; ++i)
      if (children[i] > 0) ::kill(children[i], SIGTERM);
    reap_children();
  }
};

// In the child: checks one point and writes a JSON answer to `fd`; never returns.
[[noreturn]] void check_point_child(const sweep_spec& s, const point& pt, const memory_budget& budget, int fd) {
  json answer;
  int status = 0;
  try {
    scenario_doc sd = load_scenario_doc(s.base);
    for (const auto& set : s.sets) apply_override(sd, set);
    for (const auto& [path, v] : pt.at) apply_override(sd, path + "=" + point_value(s, path, v, false).dump());
    module_registry reg;
    register_builtin_modules(reg);
    platform p(sd, reg, false, budget);
    p.require_every_core_loaded();
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
std::vector<point_check> check_points(const sweep_spec& s, unsigned jobs, const memory_budget& budget) {
  children_guard guard;
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
      pid_t pid;
      try {
        pid = fork_child();
      } catch (...) {
        std::fclose(f);
        throw;
      }
      if (pid == 0) {
        // The check's own output (SystemC's messages) would repeat once per point.
        const int null = ::open("/dev/null", O_WRONLY);
        if (null >= 0) {
          ::dup2(null, 1);
          ::dup2(null, 2);
        }
        check_point_child(s, s.points[next], budget, ::fileno(f));
      }
      running[pid] = {next++, f};
    }
    int status = 0;
    const pid_t pid = wait_child(status);
    if (pid < 0) break;
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

// The sweep file of the run under way: written before any point runs and renamed to
// sweep.json once the tables are written, so that sweep.json always describes
// results.csv and results.json. Its presence marks a sweep that has not finished.
const char* pending_name = "sweep.pending.json";

// The points that run (or are submitted): those without current results. A point's earlier
// folder is left to its run, which replaces it under `flynn run`'s rules (never through a
// link, never when it holds files Flynn did not write: then that point fails and says so).
// Its log is checked before anything runs or is written: one that is a link, has other
// names (hard links) or is not a file is bad input, and nothing is written through it.
std::vector<const point*> points_to_run(const sweep_spec& s, const std::vector<point_check>& checks,
                                        const std::string& out) {
  std::vector<const point*> todo;
  for (const auto& pt : s.points) {
    const std::string dir = out + "/points/" + pt.name, log = dir + ".log";
    if (state_of(dir, checks[pt.index]) == point_state::current) continue;
    struct stat st {};
    if (::lstat(log.c_str(), &st) == 0 && (!S_ISREG(st.st_mode) || st.st_nlink != 1))
      throw input_error(s.file + ": " + point_where(pt) + ": " + log +
                        ": expected the point's log as Flynn wrote it (a file), found " +
                        (S_ISLNK(st.st_mode)  ? "a symbolic link"
                         : S_ISREG(st.st_mode) ? "a file with other hard links"
                                               : "something else") +
                        " (nothing is written through it; move it away)");
    todo.push_back(&pt);
  }
  return todo;
}

// Starts `flynn run ...` for one point, its output into the open file `log_fd`.
pid_t spawn(const std::string& exe, const std::vector<std::string>& args, int log_fd) {
  const pid_t pid = fork_child();
  if (pid != 0) return pid;
  ::dup2(log_fd, 1);
  ::dup2(log_fd, 2);
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(exe.c_str(), argv.data());
  ::_exit(127);
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

// A table cell. A spreadsheet takes a cell that starts with '=', '+', '-' or '@' (or a tab
// or carriage return) for a formula: such a text cell (an axis value, a message, a column
// name) is written with a leading apostrophe, which shows it as the text it is. Numbers are
// written as they are.
std::string csv_cell(const json& v) {
  if (v.is_null()) return "";
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (v.is_string() && !s.empty() && std::strchr("=+-@\t\r", s[0]) != nullptr) s.insert(0, 1, '\'');
  if (s.find_first_of(",\"\n\r") != std::string::npos) {
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
        if (r != ran.end()) {  // it ran now and did not replace them
          row["result"] = "failed";
          row["message"] = failure_message(log, &r->second);
          ++failed;
          break;
        }
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
  {
    // The tables, then the sweep file they belong to: a signal waits until all three are
    // in place.
    signals_blocked blocked;
    write_file_atomic(out + "/results.csv", csv.str());
    write_file_atomic(out + "/results.json",
                      json{{"sweep", s.name},
                           {"base", ec ? s.base : base_rel.string()},
                           {"columns", columns},
                           {"rows", rows}}
                              .dump(2, ' ', false, json::error_handler_t::replace) +
                          "\n");
    write_file_atomic(out + "/sweep.json", s.text);
    fs::remove(out + "/" + pending_name, ec);
  }
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
              const std::vector<const point*>& todo, unsigned jobs, bool quiet) {
  const std::string exe = self_path();
  const std::size_t kept = s.points.size() - todo.size();
  const bool tty = isatty(2) != 0;
  const auto t0 = std::chrono::steady_clock::now();
  children_guard guard;
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
    while (next < todo.size() && running.size() < jobs && !stop_signal) {
      const point& pt = *todo[next++];
      const std::string dir = out + "/points/" + pt.name, log = dir + ".log";
      // Never through a link, never into a file with other names (checked before, and
      // again here by the open itself).
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
      struct stat st {};
      if (fd < 0 || ::fstat(fd, &st) != 0 || st.st_nlink != 1) {
        const int e = errno;
        if (fd >= 0) ::close(fd);
        throw std::runtime_error("sweep: cannot write the log " + log + " (" +
                                 (fd >= 0 ? std::string("it has other hard links") : std::strerror(e)) + ")");
      }
      const pid_t pid = spawn(exe, run_args(s, pt, dir, false), fd);
      ::close(fd);
      running[pid] = &pt;
    }
    progress(false);
    int status = 0;
    const pid_t pid = wait_child(status);
    if (pid < 0) break;
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

// The arguments of each task as data: each string followed by a NUL byte (a string never
// holds one: sets and paths are refused with control characters, values are JSON text).
std::string task_file(const std::vector<std::string>& argv) {
  std::string r;
  for (const auto& a : argv) {
    r += a;
    r += '\0';
  }
  return r;
}

// The Slurm job: job.sh and, per task, its argument file (the point's log, then the command).
// job.sh holds no value of the sweep file but its name, which check_name has limited to
// letters, digits, '_', '-' and '.'; the tasks' command lines are read as data (mapfile -d ''),
// never as shell text.
struct slurm_job {
  std::string script;
  std::vector<std::string> tasks;
};

// What a point's task runs: its log file, then flynn and the run's arguments (absolute
// paths: a task may start anywhere).
std::vector<std::string> task_argv(const sweep_spec& s, const point& pt, const std::string& out,
                                   const std::string& exe) {
  const std::string pdir = fs::absolute(out + "/points/" + pt.name).lexically_normal().string();
  std::vector<std::string> argv = {pdir + ".log", exe};
  for (auto& a : run_args(s, pt, pdir, true)) argv.push_back(std::move(a));
  return argv;
}

slurm_job make_slurm_job(const sweep_spec& s, const std::vector<const point*>& todo, const std::string& out,
                         const std::string& exe) {
  const std::string adir = fs::absolute(out + "/slurm").lexically_normal().string();
  slurm_job j;
  for (const point* pt : todo) j.tasks.push_back(task_file(task_argv(s, *pt, out, exe)));
  std::ostringstream job;
  job << "#!/bin/bash\n"
      << "#SBATCH --job-name=\"flynn-" << s.name << "\"\n"
      << "#SBATCH --array=0-" << (todo.empty() ? 0 : todo.size() - 1) << "\n"
      << "#SBATCH --output=\"" << adir << "/task-%a.out\"\n"
      << "# One flynn run per array task. Its command line is data, never shell text:\n"
      << "# tasks/TASK.args holds the point's log file, then the command and its arguments,\n"
      << "# each ended by a NUL byte.\n"
      << "set -eu\n"
      << "export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1\n"
      << "task=\"${SLURM_ARRAY_TASK_ID:-}\"\n"
      << "case \"$task\" in\n"
      << "  '' | *[!0-9]*) echo \"flynn sweep job: SLURM_ARRAY_TASK_ID is not a task number\" >&2; exit 2 ;;\n"
      << "esac\n"
      << "mapfile -d '' -t argv < " << shell_quote(adir + "/tasks/") << "\"$task.args\"\n"
      << "[ \"${#argv[@]}\" -ge 2 ] || { echo \"flynn sweep job: task $task has no command\" >&2; exit 2; }\n"
      << "# The sweep removed the point's earlier log: a file there now is not Flynn's.\n"
      << "set -o noclobber\n"
      << "exec \"${argv[@]:1}\" >\"${argv[0]}\" 2>&1\n";
  j.script = job.str();
  return j;
}

// The folder of the job's files, emptied of what an earlier submission wrote there (its
// task files, job.sh, points.sh of earlier versions); anything else in it is refused.
void prepare_slurm_folder(const std::string& dir) {
  std::error_code ec;
  for (const std::string& d : {dir, dir + "/tasks"}) {
    const fs::file_status st = fs::symlink_status(d, ec);
    if (fs::is_symlink(st) || (fs::exists(st) && !fs::is_directory(st)))
      throw input_error(d + ": expected the folder of the sweep's Slurm job, found " +
                        (fs::is_symlink(st) ? "a symbolic link" : "a file") + " (nothing is written through it)");
  }
  fs::create_directories(dir + "/tasks");
  for (const auto& e : fs::directory_iterator(dir + "/tasks")) {
    const std::string n = e.path().filename().string();
    const bool ours = n.size() > 5 && n.compare(n.size() - 5, 5, ".args") == 0 &&
                      n.find_first_not_of("0123456789") == n.size() - 5 && fs::is_regular_file(e.symlink_status());
    if (!ours)
      throw input_error(e.path().string() + ": expected only the task files of the sweep's Slurm job in " + dir +
                        "/tasks, found this (move it away; nothing is deleted)");
  }
  for (const auto& e : fs::directory_iterator(dir + "/tasks")) fs::remove(e.path());
  fs::remove(dir + "/points.sh", ec);  // (the command list of earlier versions)
}

int submit_slurm(const sweep_spec& s, const std::vector<point_check>& checks, const std::string& out,
                 const std::vector<const point*>& todo, const std::string& sbatch_opts, bool quiet) {
  if (todo.empty()) {
    if (!quiet) std::cout << "sweep " << s.name << ": every point has finished; nothing to submit\n";
    return collect(s, checks, out, quiet);
  }
  const std::string dir = out + "/slurm", adir = fs::absolute(dir).lexically_normal().string();
  prepare_slurm_folder(dir);
  // Earlier logs go now: the tasks write new ones, only where none is (see job.sh).
  for (const point* pt : todo) {
    std::error_code ec;
    fs::remove(out + "/points/" + pt->name + ".log", ec);  // a plain file with one name: points_to_run checked it
  }
  const slurm_job job = make_slurm_job(s, todo, out, self_path());
  for (std::size_t t = 0; t < job.tasks.size(); ++t)
    write_file_atomic(dir + "/tasks/" + std::to_string(t) + ".args", job.tasks[t]);
  write_file_atomic(dir + "/job.sh", job.script);
  // --sbatch OPTIONS is the user's own command line, given to the shell as they wrote it.
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
    std::cout << "sweep " << s.name << ": submitted " << todo.size() << " points as Slurm job array " << excerpt(id, 80)
              << "; when it has finished: flynn sweep " << s.file << " --outdir " << out << " --collect\n";
  return 0;
}

// The sweep's folder: new, or one a sweep wrote (it holds sweep.json, or sweep.pending.json
// when that sweep did not finish).
void check_sweep_folder(const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::exists(out + "/sweep.json", ec) && !fs::exists(out + "/" + pending_name, ec))
    throw input_error("command line: --outdir: '" + out + "' exists and is not a sweep folder (no sweep.json)");
}

// Slurm names the job's folder in #SBATCH lines of job.sh, which are not shell but have
// quotes, escapes and % patterns of their own.
void check_slurm_folder_name(const std::string& out) {
  const std::string adir = fs::absolute(out + "/slurm").lexically_normal().string();
  for (std::size_t i = 0; i < adir.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(adir[i]);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '%')
      throw input_error("command line: --outdir: expected a folder path Slurm's #SBATCH lines can name (no control "
                        "characters, '\"', '\\' or '%'), found " + excerpt(adir, 80) + ", with " +
                        excerpt(std::string(1, static_cast<char>(c))) + " at character " + std::to_string(i + 1));
  }
}

}  // namespace

sweep_slurm_files sweep_slurm_job(const std::string& file, const std::string& text, const std::string& outdir,
                                  const std::string& exe) {
  const sweep_spec s = parse_sweep(file, text);
  std::vector<const point*> all;
  for (const auto& pt : s.points) all.push_back(&pt);
  slurm_job j = make_slurm_job(s, all, outdir, exe);
  sweep_slurm_files r{std::move(j.script), std::move(j.tasks), {}};
  for (const auto& pt : s.points) r.task_argv.push_back(task_argv(s, pt, outdir, exe));
  return r;
}

int sweep_main(const std::vector<std::string>& args) {
  std::string file, out, out_root, sbatch, budget_option;
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
          std::stoul(v) < 1 || std::stoul(v) > max_children)
        throw input_error("command line: sweep: --jobs: expected 1 .. " + std::to_string(max_children) + ", found '" + v + "'");
      jobs = static_cast<unsigned>(std::stoul(v));
    } else if (a == "--slurm") slurm = true;
    else if (a == "--sbatch") sbatch = value();
    else if (a == "--collect") collect_only = true;
    else if (a == "--memory-budget") budget_option = value();
    else if (a == "--quiet" || a == "-q") quiet = true;
    else if (!a.empty() && a[0] == '-') throw input_error("command line: sweep: unknown option '" + a + "' (see flynn sweep --help)");
    else if (file.empty()) file = a;
    else throw input_error("command line: sweep: one SWEEP file expected, found also '" + a + "'");
  }
  if (file.empty()) throw input_error("command line: sweep: expected a SWEEP file");
  const sweep_spec s = parse_sweep(file, read_source(file, "a sweep file (JSON)"));
  std::error_code ec;
  if (!fs::exists(s.base, ec)) throw input_error(file, "base", "an existing scenario file", excerpt(s.base, 200));
  if (out.empty()) out = output_root(out_root) + "/sweep-" + s.name;
  check_sweep_folder(out);
  if (slurm && !collect_only) check_slurm_folder_name(out);
  // Points run --jobs at a time (on Slurm, as many as the cluster gives: each is held to
  // the whole budget of the node it runs on): each is checked against its share of the
  // budget, so that those running at once fit in it together.
  memory_budget budget = memory_budget::from(budget_option);
  const std::size_t at_once = slurm ? 1 : std::min<std::size_t>(jobs, s.points.size());
  if (at_once > 1) {
    budget.source = bytes_text(budget.bytes) + " (" + budget.source + ") shared by the " + std::to_string(at_once) +
                    " points --jobs " + std::to_string(jobs) + " runs at once";
    budget.bytes /= at_once;
  }
  signal_scope signals;
  try {
    // Bad input in any point, or a metric no point has, stops the sweep before anything
    // runs or is written.
    const std::vector<point_check> checks = check_points(s, jobs, budget);
    check_metrics(s, checks);
    const std::vector<const point*> todo = collect_only ? std::vector<const point*>{} : points_to_run(s, checks, out);
    fs::create_directories(out + "/points");
    write_file_atomic(out + "/" + pending_name, s.text);
    if (collect_only) return collect(s, checks, out, quiet);
    if (slurm) return submit_slurm(s, checks, out, todo, sbatch, quiet);
    return run_local(s, checks, out, todo, jobs, quiet);
  } catch (const interrupted& i) {
    // The points that finished keep their folders; the tables and sweep.json are still
    // those of the last sweep that finished (sweep.pending.json marks this one unfinished).
    std::cerr << "flynn: sweep " << s.name << ": interrupted by signal " << i.signal << " (" << strsignal(i.signal)
              << "); the points that finished are kept, results.csv and sweep.json are those of the last finished "
                 "sweep; run it again to go on\n";
    return 128 + i.signal;
  }
}

}  // namespace flynn
