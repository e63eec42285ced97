// flynn sweep on Slurm: the job array's script (job.sh) and per task its argument file,
// written into the sweep folder's slurm/ and submitted with sbatch. Values of the sweep file
// reach the script only as data (see make_slurm_job).
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "flynn/platform/errors.h"
#include "flynn/platform/output.h"
#include "flynn/platform/sweep.h"
#include "sweep_parts.h"

namespace fs = std::filesystem;

namespace flynn::sweep_detail {

namespace {

// `x` as one word of shell text: in single quotes, each quote in it written as '\''.
std::string shell_quote(const std::string& x) {
  std::string q = "'";
  for (char c : x) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
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

}  // namespace

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

}  // namespace flynn::sweep_detail

namespace flynn {

sweep_slurm_files sweep_slurm_job(const std::string& file, const std::string& text, const std::string& outdir,
                                  const std::string& exe) {
  using namespace sweep_detail;
  const sweep_spec s = parse_sweep(file, text);
  std::vector<const point*> all;
  for (const auto& pt : s.points) all.push_back(&pt);
  slurm_job j = make_slurm_job(s, all, outdir, exe);
  sweep_slurm_files r{std::move(j.script), std::move(j.tasks), {}};
  for (const auto& pt : s.points) r.task_argv.push_back(task_argv(s, pt, outdir, exe));
  return r;
}

}  // namespace flynn
