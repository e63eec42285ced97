// flynn sweep: a base scenario plus parameter axes, one run (and output folder) per point,
// locally on all cores or as a Slurm job array, results collected into one table.
// Here: the command, and points run on this machine. The sweep file, the checks of points,
// the results table and the Slurm job are in sweep_file.cpp, sweep_check.cpp,
// sweep_results.cpp and sweep_slurm.cpp.
#include "flynn/platform/sweep.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <thread>

#include "flynn/platform/errors.h"
#include "flynn/platform/output.h"
#include "flynn/platform/platform.h"
#include "sweep_parts.h"

namespace fs = std::filesystem;

namespace flynn {

namespace sweep_detail {

std::string self_path() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "flynn" : p.string();
}

namespace {

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

// Runs the points `todo` here, `jobs` at a time (progress on stderr when it is a terminal),
// then writes the table.
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

// The sweep's folder: new, or one a sweep wrote (it holds sweep.json, or sweep.pending.json
// when that sweep did not finish).
void check_sweep_folder(const std::string& out) {
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::exists(out + "/sweep.json", ec) && !fs::exists(out + "/" + pending_name, ec))
    throw input_error("command line: --outdir: '" + out + "' exists and is not a sweep folder (no sweep.json)");
}

}  // namespace

}  // namespace sweep_detail

int sweep_main(const std::vector<std::string>& args) {
  using namespace sweep_detail;
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
