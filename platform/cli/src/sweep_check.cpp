// flynn sweep's child processes and the check of every point before anything runs. Points
// are checked and run in child processes. A signal that ends the sweep (SIGINT, SIGTERM,
// SIGHUP) ends them too: the handler passes it on to every child the sweep knows of, so that
// waitpid returns, and the sweep then waits for them all and stops. A child whose parent
// dies some other way (SIGKILL) is sent SIGTERM by the kernel (PR_SET_PDEATHSIG).
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "flynn/common/registry.h"
#include "flynn/platform/errors.h"
#include "flynn/platform/output.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/scenario.h"
#include "flynn/platform/temp_file.h"
#include "sweep_parts.h"

using nlohmann::json;

namespace flynn::sweep_detail {

volatile sig_atomic_t stop_signal = 0;

namespace {

// --------------------------------------------------------------------------- child processes

volatile pid_t children[max_children];  // 0: a free slot; changed only with the signals blocked

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

void set_child(pid_t from, pid_t to) {
  for (std::size_t i = 0; i < max_children; ++i)
    if (children[i] == from) {
      children[i] = to;
      return;
    }
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

}  // namespace

signal_scope::signal_scope() {
  stop_signal = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < std::size(stop_signals); ++i) ::sigaction(stop_signals[i], &sa, &old_[i]);
}

signal_scope::~signal_scope() {
  for (std::size_t i = 0; i < std::size(stop_signals); ++i) ::sigaction(stop_signals[i], &old_[i], nullptr);
}

signals_blocked::signals_blocked() {
  const sigset_t set = stop_set();
  ::sigprocmask(SIG_BLOCK, &set, &old_);
}

signals_blocked::~signals_blocked() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }

children_guard::~children_guard() {
  for (std::size_t i = 0; i < max_children; ++i)
    if (children[i] > 0) ::kill(children[i], SIGTERM);
  reap_children();
}

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

// --------------------------------------------------------------------------- checking points
// Every point is elaborated before anything runs: its overrides applied to the base
// scenario, every module built with its parameters, the bindings made and the workload
// assembled, exactly as its run will do, but nothing is simulated. That yields, per point,
// bad input (with its location), the fingerprint its run will record (see make_run_record)
// and the statistics its modules declare (they are declared when the modules are built), so
// that metrics are checked against what the points will really write. SystemC elaborates
// one platform per process, so each point is checked in a forked child.

namespace {

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

}  // namespace

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

}  // namespace flynn::sweep_detail
