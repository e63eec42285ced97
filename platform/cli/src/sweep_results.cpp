// flynn sweep's results: the state of each point's folder, and the table of every point
// (results.csv, results.json) with the summary line.
#include <sys/wait.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "flynn/platform/output.h"
#include "sweep_parts.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace flynn::sweep_detail {

namespace {

// A point's folder holds the results of a run that finished.
bool finished(const std::string& dir) {
  return fs::exists(dir + "/.flynn-output") && fs::exists(dir + "/stats.json");
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

// The table's columns: the point, its folder, its axes, the run's result and counts, the
// metrics and a message.
std::vector<std::string> table_columns(const sweep_spec& s) {
  std::vector<std::string> columns = {"point", "folder"};
  for (const auto& a : s.axes) columns.push_back(a.path);
  for (const char* c : {"result", "cycles", "instructions", "sim_time_ns"}) columns.push_back(c);
  for (const auto& m : s.metrics)
    if (std::find(columns.begin(), columns.end(), m) == columns.end()) columns.push_back(m);
  if (std::find(columns.begin(), columns.end(), "message") == columns.end())
    columns.push_back("message");
  return columns;
}

// How many points have each result, for the summary line.
struct tally {
  std::size_t ok = 0, missing = 0, failed = 0, stale = 0;
};

// One point's row: its axis values, status, metrics and message; counted in `n`.
json point_row(const sweep_spec& s, const point& pt, const point_check& check, const std::vector<std::string>& columns,
               const std::string& out, const std::map<std::size_t, int>& ran, tally& n) {
  const std::size_t first_stat = 2 + s.axes.size();
  const std::string dir = out + "/points/" + pt.name, log = dir + ".log";
  json row = json::object();
  row["point"] = pt.index;
  row["folder"] = "points/" + pt.name;
  for (const auto& [path, v] : pt.at) row[path] = v;
  for (std::size_t c = first_stat; c < columns.size(); ++c) row[columns[c]] = nullptr;
  row["message"] = "";
  const auto r = ran.find(pt.index);
  switch (state_of(dir, check)) {
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
        ++n.ok;
      else
        ++n.failed;
      break;
    }
    case point_state::stale:
      if (r != ran.end()) {  // it ran now and did not replace them
        row["result"] = "failed";
        row["message"] = failure_message(log, &r->second);
        ++n.failed;
        break;
      }
      row["result"] = "stale";
      row["message"] =
          "its results are from an earlier configuration or earlier input files (fingerprint " +
          recorded_fingerprint(dir) + ", now " + check.fingerprint +
          "); the next run of the sweep runs it again";
      ++n.stale;
      break;
    case point_state::absent:
      if (r != ran.end() || fs::exists(log)) {
        row["result"] = "failed";
        row["message"] = failure_message(log, r != ran.end() ? &r->second : nullptr);
        ++n.failed;
      } else {
        row["result"] = "missing";
        ++n.missing;
      }
      break;
  }
  return row;
}

// results.csv: a header line of the columns, then one line per row.
std::string csv_table(const std::vector<std::string>& columns, const json& rows) {
  std::ostringstream csv;
  for (std::size_t c = 0; c < columns.size(); ++c) csv << (c ? "," : "") << csv_cell(columns[c]);
  csv << "\n";
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c) csv << (c ? "," : "") << csv_cell(row.value(columns[c], json()));
    csv << "\n";
  }
  return csv.str();
}

}  // namespace

point_state state_of(const std::string& dir, const point_check& c) {
  if (!finished(dir)) return point_state::absent;
  return recorded_fingerprint(dir) == c.fingerprint ? point_state::current : point_state::stale;
}

int collect(const sweep_spec& s, const std::vector<point_check>& checks, const std::string& out, bool quiet,
            const std::map<std::size_t, int>& ran) {
  const std::vector<std::string> columns = table_columns(s);
  json rows = json::array();
  tally n;
  for (const auto& pt : s.points) rows.push_back(point_row(s, pt, checks[pt.index], columns, out, ran, n));
  const std::string csv = csv_table(columns, rows);
  std::error_code ec;
  const fs::path base_rel = fs::relative(fs::absolute(s.base, ec), fs::absolute(out, ec), ec);
  {
    // The tables, then the sweep file they belong to: a signal waits until all three are
    // in place.
    signals_blocked blocked;
    write_file_atomic(out + "/results.csv", csv);
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
    std::cout << "sweep " << s.name << ": " << s.points.size() << " points, " << n.ok << " ok, "
              << n.failed << " failed, " << n.missing << " not run"
              << (n.stale ? ", " + std::to_string(n.stale) +
                                " stale (their configuration or inputs changed)"
                          : "")
              << "; table: " << fs::absolute(out).lexically_normal().string() << "/results.csv\n";
  return n.ok == s.points.size() ? 0 : 1;
}

}  // namespace flynn::sweep_detail
