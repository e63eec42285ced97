// What the parts of flynn sweep share: the sweep file as read (its axes and points), the check
// of each point, the child processes points are checked and run in, and the steps
// sweep_main takes (check, run locally or submit to Slurm, collect the table).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "flynn/platform/platform.h"

namespace flynn::sweep_detail {

struct axis {
  std::string path;
  std::vector<nlohmann::json> values;
};

struct point {
  std::size_t index = 0;
  std::string name;                                        // folder name under points/
  std::vector<std::pair<std::string, nlohmann::json>> at;  // path -> value
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

// ------------------------------------------------------------------ the sweep file (sweep_file.cpp)

// The sweep file `text` (read from `file`) checked and expanded into its points. Throws
// input_error at the first bad entry.
sweep_spec parse_sweep(const std::string& file, const std::string& text);

// An axis or `sets` value as the point's run takes it (a workload file relative to where the
// sweep runs, or absolute).
nlohmann::json point_value(const sweep_spec& s, const std::string& path, const nlohmann::json& v, bool absolute);

// The command line of one point's run after "flynn" (absolute paths when `absolute`).
std::vector<std::string> run_args(const sweep_spec& s, const point& pt, const std::string& outdir, bool absolute);

// "point 0003_banks-8 (axes[0] modules.mem.banks=8)": which point, and which sweep entries
// made it.
std::string point_where(const point& pt);

// ------------------------------------------------------ child processes and checks (sweep_check.cpp)

// What checking a point before anything runs yields (see check_points).
struct point_check {
  std::string fingerprint;
  std::vector<std::string> statistics;  // top-level stats.json keys and INSTANCE.STATISTIC
  int status = 0;                       // 0 valid, 2 bad input, else an internal failure
  std::string error;
};

constexpr std::size_t max_children = 4096;  // --jobs is at most this

// The stop signal that has come (SIGINT, SIGTERM, SIGHUP), else 0.
extern volatile sig_atomic_t stop_signal;

// Thrown once a stop signal has come and every child has ended.
struct interrupted {
  int signal;
};

// The signals that stop a sweep (its children with it).
inline constexpr int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

// The sweep's handlers of the stop signals, for its lifetime. No SA_RESTART: waitpid
// returns EINTR.
class signal_scope {
 public:
  signal_scope();
  ~signal_scope();
  signal_scope(const signal_scope&) = delete;
  signal_scope& operator=(const signal_scope&) = delete;

 private:
  struct sigaction old_[std::size(stop_signals)];
};

// Blocks the stop signals while alive (a table and the sweep.json beside it are written as
// one, and the child list changes without the handler seeing half of it).
class signals_blocked {
 public:
  signals_blocked();
  ~signals_blocked();

 private:
  sigset_t old_;
};

// Whatever leaves a loop of children early (an exception) stops and waits for those still
// running.
struct children_guard {
  ~children_guard();
};

// fork() for a check or a run: in the child (0 returned) the stop signals have their
// default action and the child ends with its parent.
pid_t fork_child();

// Waits for one child; throws `interrupted` (after waiting for all of them) once a stop
// signal has come. Returns -1 when there is no child.
pid_t wait_child(int& status);

// Checks every point, `jobs` at a time. Throws input_error for the first point (in point
// order) that is bad input.
std::vector<point_check> check_points(const sweep_spec& s, unsigned jobs, const memory_budget& budget);

// Throws input_error for a metric that no point writes.
void check_metrics(const sweep_spec& s, const std::vector<point_check>& checks);

// ------------------------------------------------------------------ the results (sweep_results.cpp)

// The sweep file of the run under way: written before any point runs and renamed to
// sweep.json once the tables are written, so that sweep.json always describes
// results.csv and results.json. Its presence marks a sweep that has not finished.
inline const char* const pending_name = "sweep.pending.json";

// A finished point is current when its run recorded the fingerprint its point has now:
// the same resolved configuration and the same contents of every file it reads.
enum class point_state { current, stale, absent };

point_state state_of(const std::string& dir, const point_check& c);

// Writes the tables (results.csv, results.json) and sweep.json into `out` and prints the
// summary; returns the sweep's exit status. `ran`: the wait status of each point this
// invocation ran (point index -> status).
int collect(const sweep_spec& s, const std::vector<point_check>& checks, const std::string& out, bool quiet,
            const std::map<std::size_t, int>& ran = {});

// ---------------------------------------------------------------------- Slurm (sweep_slurm.cpp)

// Writes the Slurm job of the points `todo` into `out`/slurm and submits it with sbatch
// (`sbatch_opts` added); returns the exit status.
int submit_slurm(const sweep_spec& s, const std::vector<point_check>& checks, const std::string& out,
                 const std::vector<const point*>& todo, const std::string& sbatch_opts, bool quiet);

// Throws input_error when the job's folder under `out` cannot be named in #SBATCH lines.
void check_slurm_folder_name(const std::string& out);

// ---------------------------------------------------------------------- running (sweep.cpp)

// This program's own path, for the runs of points ("flynn" when it cannot be read).
std::string self_path();

}  // namespace flynn::sweep_detail
