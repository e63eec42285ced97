// flynn-gmma-compare: compares a GMMA microbenchmark result file ("flynn-gmma-bench 1",
// written by scripts/cuda/gmma_microbench.cu on a Hopper GPU) with the model: every D
// element against the model's datapath arithmetic (reference_gemm) and exact arithmetic
// (reference_gemm_f64), and the measured issue intervals of dependent wgmmas against the
// `mma_interval` of a flynn stats.json. docs/calibration.md describes the format.
//
//   flynn-gmma-compare FILE [--model-stats STATS] [--require-bit-exact] [--list N]
//   flynn-gmma-compare --synthesize OUT [--flip-bit GEMM:ROW:COL:BIT]
//
// Exit status: 0 the file parsed (and, with --require-bit-exact, every D element equals the
// model bit for bit); 1 a D element differs under --require-bit-exact; 2 bad input
// (malformed file, reported as FILE:LINE: expected ..., found ...; unreadable stats;
// command line).

#include "flynn/common/bits.h"
#include "flynn/tensor/numeric.h"
#include "splitmix64.h"  // the inputs, as the microbenchmark makes them

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

constexpr const char* kMagic = "flynn-gmma-bench";
constexpr int kVersion = 1;
constexpr unsigned kMaxDim = 1024;

// Distance in units in the last place: the bit patterns mapped to a monotonic integer line.
std::uint64_t ulp_distance(std::uint32_t x, std::uint32_t y) {
  auto line = [](std::uint32_t b) -> std::int64_t {
    const std::int64_t mag = b & 0x7fffffffu;
    return (b & 0x80000000u) ? -mag : mag;
  };
  const std::int64_t d = line(x) - line(y);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

const char* type_name(flynn::element_type t) { return t == flynn::element_type::bf16 ? "bf16" : "f16"; }

// ---------------------------------------------------------------------------------------
// The file
// ---------------------------------------------------------------------------------------
struct Interval {
  unsigned n = 0;
  flynn::element_type type = flynn::element_type::f16;
  std::uint64_t wgmmas = 0, cycles = 0;
  int line = 0;
};

struct Gemm {
  std::string name;
  flynn::element_type type = flynn::element_type::f16;
  unsigned m = 0, n = 0, k = 0;
  std::uint64_t seed = 0;
  bool c_seeded = true;
  std::vector<std::uint16_t> a, b;  // row-major M x K, K x N
  std::vector<float> c, d;          // row-major M x N
  int line = 0;
};

struct BenchFile {
  std::string source, device;
  std::vector<Interval> intervals;
  std::vector<Gemm> gemms;
};

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string tok;
  while (in >> tok) out.push_back(tok);
  return out;
}

class Parser {
 public:
  Parser(std::string path, std::istream& in) : path_(std::move(path)) {
    std::string l;
    while (std::getline(in, l)) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines_.push_back(l);
    }
  }

  BenchFile parse() {
    BenchFile f;
    const std::vector<std::string> head = next("the header line '" + std::string(kMagic) + " 1'");
    if (head.size() != 2 || head[0] != kMagic)
      fail("expected the header line '" + std::string(kMagic) + " 1'", quote(raw()));
    if (head[1] != std::to_string(kVersion))
      fail("expected format version " + std::to_string(kVersion), quote(head[1]));
    while (true) {
      const bool more = skip_to_record();
      if (!more) break;
      const std::vector<std::string> t = split_ws(lines_[pos_]);
      const std::string& kw = t[0];
      ++pos_;
      if (kw == "source") {
        if (!f.source.empty()) fail("expected one 'source' line", "a second one");
        if (t.size() != 2 || (t[1] != "hardware" && t[1] != "synthetic"))
          fail("expected 'source hardware' or 'source synthetic'", quote(raw()));
        f.source = t[1];
      } else if (kw == "device") {
        const std::string& l = raw();
        const std::size_t at = l.find("device") + 6;
        f.device = at < l.size() ? trim(l.substr(at)) : std::string();
      } else if (kw == "interval") {
        f.intervals.push_back(parse_interval(t));
      } else if (kw == "gemm") {
        f.gemms.push_back(parse_gemm(t));
        for (std::size_t i = 0; i + 1 < f.gemms.size(); ++i)
          if (f.gemms[i].name == f.gemms.back().name)
            fail("expected a GEMM name not used before", quote(f.gemms.back().name));
      } else {
        fail("expected one of 'source', 'device', 'interval', 'gemm'", quote(kw));
      }
    }
    if (f.source.empty()) fail_at(static_cast<int>(lines_.size()), "expected a 'source' line", "end of file");
    return f;
  }

 private:
  std::string path_;
  std::vector<std::string> lines_;
  std::size_t pos_ = 0;  // next line to read

  static std::string quote(const std::string& s) {
    const std::string cut = s.size() > 60 ? s.substr(0, 57) + "..." : s;
    return "'" + cut + "'";
  }
  static std::string trim(const std::string& s) {
    const std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return {};
    return s.substr(b, s.find_last_not_of(" \t") - b + 1);
  }
  static bool ignorable(const std::string& l) {
    const std::size_t b = l.find_first_not_of(" \t");
    return b == std::string::npos || l[b] == '#';
  }

  // The line just consumed.
  const std::string& raw() const { return lines_[pos_ - 1]; }

  [[noreturn]] void fail_at(int line, const std::string& expected, const std::string& found) const {
    throw ParseError(path_ + ":" + std::to_string(line) + ": " + expected + ", found " + found);
  }
  [[noreturn]] void fail(const std::string& expected, const std::string& found) const {
    fail_at(static_cast<int>(pos_), expected, found);
  }

  bool skip_to_record() {
    while (pos_ < lines_.size() && ignorable(lines_[pos_])) ++pos_;
    return pos_ < lines_.size();
  }

  // The next significant line's tokens; `what` names it for the error at the end of file.
  std::vector<std::string> next(const std::string& what) {
    if (!skip_to_record()) fail_at(static_cast<int>(lines_.size()), "expected " + what, "end of file");
    ++pos_;
    return split_ws(raw());
  }

  std::map<std::string, std::string> keyvals(const std::vector<std::string>& t,
                                             const std::vector<std::string>& keys) const {
    std::map<std::string, std::string> kv;
    for (std::size_t i = 1; i < t.size(); ++i) {
      const std::size_t eq = t[i].find('=');
      if (eq == std::string::npos || eq == 0) fail("expected key=value", quote(t[i]));
      const std::string key = t[i].substr(0, eq);
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        std::string list;
        for (const auto& k : keys) list += (list.empty() ? "" : ", ") + k;
        fail("expected one of the keys " + list, quote(key));
      }
      if (kv.count(key)) fail("expected each key once", "'" + key + "' twice");
      kv[key] = t[i].substr(eq + 1);
    }
    for (const auto& k : keys)
      if (!kv.count(k)) fail("expected key '" + k + "='", "none");
    return kv;
  }

  std::uint64_t number(const std::string& key, const std::string& v, std::uint64_t lo, std::uint64_t hi) const {
    const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    const std::string digits = hex ? v.substr(2) : v;
    const char* allowed = hex ? "0123456789abcdefABCDEF" : "0123456789";
    if (digits.empty() || digits.size() > (hex ? 16u : 19u) || digits.find_first_not_of(allowed) != std::string::npos)
      fail("expected an unsigned integer for '" + key + "'", quote(v));
    const std::uint64_t x = std::strtoull(digits.c_str(), nullptr, hex ? 16 : 10);
    if (x < lo || x > hi)
      fail("expected '" + key + "' in " + std::to_string(lo) + " .. " + std::to_string(hi), quote(v));
    return x;
  }

  flynn::element_type elem_type(const std::string& v) const {
    if (v == "bf16") return flynn::element_type::bf16;
    if (v == "f16") return flynn::element_type::f16;
    fail("expected type 'f16' or 'bf16'", quote(v));
  }

  Interval parse_interval(const std::vector<std::string>& t) const {
    const auto kv = keyvals(t, {"n", "type", "wgmmas", "cycles"});
    Interval iv;
    iv.line = static_cast<int>(pos_);
    iv.n = static_cast<unsigned>(number("n", kv.at("n"), 8, 256));
    iv.type = elem_type(kv.at("type"));
    iv.wgmmas = number("wgmmas", kv.at("wgmmas"), 1, ~0ull >> 1);
    iv.cycles = number("cycles", kv.at("cycles"), 0, ~0ull >> 1);
    return iv;
  }

  // One matrix row: "<tag> <index> <count values of `digits` hex digits>".
  template <typename T>
  void row(const std::string& tag, unsigned index, unsigned count, unsigned digits, std::vector<T>& out) {
    const std::string what = "'" + tag + " " + std::to_string(index) + "'";
    const std::vector<std::string> t = next("the row " + what);
    if (t[0] != tag || t.size() < 2 || t[1] != std::to_string(index))
      fail("expected the row " + what, quote(t[0] + (t.size() > 1 ? " " + t[1] : std::string())));
    if (t.size() - 2 != count)
      fail("expected " + std::to_string(count) + " values in row " + what, std::to_string(t.size() - 2));
    for (unsigned i = 0; i < count; ++i) {
      const std::string& v = t[i + 2];
      if (v.size() != digits || v.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        fail("expected " + std::to_string(digits) + " hex digits (value " + std::to_string(i) + " of row " + what + ")",
             quote(v));
      const auto x = std::strtoull(v.c_str(), nullptr, 16);
      if constexpr (std::is_same_v<T, float>)
        out.push_back(flynn::bits_to_float(static_cast<std::uint32_t>(x)));
      else
        out.push_back(static_cast<T>(x));
    }
  }

  Gemm parse_gemm(const std::vector<std::string>& t) {
    const auto kv = keyvals(t, {"name", "type", "m", "n", "k", "seed", "c"});
    Gemm g;
    g.line = static_cast<int>(pos_);
    g.name = kv.at("name");
    if (g.name.empty()) fail("expected a GEMM name", "an empty one");
    g.type = elem_type(kv.at("type"));
    g.m = static_cast<unsigned>(number("m", kv.at("m"), 1, kMaxDim));
    g.n = static_cast<unsigned>(number("n", kv.at("n"), 1, kMaxDim));
    g.k = static_cast<unsigned>(number("k", kv.at("k"), 1, kMaxDim));
    g.seed = number("seed", kv.at("seed"), 0, ~0ull);
    const std::string& c = kv.at("c");
    if (c != "seeded" && c != "zero") fail("expected c=seeded or c=zero", quote(c));
    g.c_seeded = c == "seeded";
    for (unsigned i = 0; i < g.m; ++i) row("a", i, g.k, 4, g.a);
    for (unsigned i = 0; i < g.k; ++i) row("b", i, g.n, 4, g.b);
    for (unsigned i = 0; i < g.m; ++i) row("c", i, g.n, 8, g.c);
    for (unsigned i = 0; i < g.m; ++i) row("d", i, g.n, 8, g.d);
    const std::vector<std::string> e = next("'end'");
    if (e.size() != 1 || e[0] != "end") fail("expected 'end' after the rows of GEMM '" + g.name + "'", quote(raw()));
    return g;
  }
};

// ---------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------
struct Mismatch {
  unsigned row, col;
  std::uint32_t hw, model;
  std::uint64_t ulps;
};

struct GemmResult {
  std::size_t elements = 0, exact = 0;
  std::uint64_t max_ulp = 0;
  double max_err_hw = 0.0, max_err_model = 0.0;
  std::size_t hw_over_bound = 0;  // hardware elements outside the sequential-fp32 error bound
  std::size_t input_diffs = 0;    // A, B, C values that differ from the seed's generator
  std::vector<Mismatch> mismatches;
};

void generate_inputs(flynn::element_type type, unsigned m, unsigned n, unsigned k, std::uint64_t seed, bool c_seeded,
                     std::vector<std::uint16_t>& a, std::vector<std::uint16_t>& b, std::vector<float>& c) {
  SplitMix64 rng{seed};
  a.resize(std::size_t(m) * k);
  b.resize(std::size_t(k) * n);
  c.assign(std::size_t(m) * n, 0.0f);
  for (auto& x : a) x = flynn::from_f32(type, rng.uniform());
  for (auto& x : b) x = flynn::from_f32(type, rng.uniform());
  if (c_seeded)
    for (auto& x : c) x = rng.uniform();
}

GemmResult compare(const Gemm& g) {
  GemmResult r;
  std::vector<float> model;
  std::vector<double> exact;
  flynn::reference_gemm(g.type, g.m, g.n, g.k, g.a, g.b, g.c, model);
  flynn::reference_gemm_f64(g.type, g.m, g.n, g.k, g.a, g.b, g.c, exact);
  for (unsigned i = 0; i < g.m; ++i)
    for (unsigned j = 0; j < g.n; ++j) {
      const std::size_t at = std::size_t(i) * g.n + j;
      const std::uint32_t hw = flynn::float_to_bits(g.d[at]), mo = flynn::float_to_bits(model[at]);
      ++r.elements;
      const double e_hw = std::fabs(double(g.d[at]) - exact[at]);
      const double e_mo = std::fabs(double(model[at]) - exact[at]);
      r.max_err_hw = std::isnan(e_hw) ? e_hw : std::max(r.max_err_hw, e_hw);
      r.max_err_model = std::isnan(e_mo) ? e_mo : std::max(r.max_err_model, e_mo);
      double mass = std::fabs(double(g.c[at]));
      for (unsigned x = 0; x < g.k; ++x)
        mass += std::fabs(double(flynn::to_f32(g.type, g.a[std::size_t(i) * g.k + x])) *
                          double(flynn::to_f32(g.type, g.b[std::size_t(x) * g.n + j])));
      if (!(e_hw <= g.k * std::ldexp(1.0, -24) * mass)) ++r.hw_over_bound;
      if (hw == mo) {
        ++r.exact;
        continue;
      }
      const std::uint64_t u = ulp_distance(hw, mo);
      r.max_ulp = std::max(r.max_ulp, u);
      r.mismatches.push_back({i, j, hw, mo, u});
    }
  std::vector<std::uint16_t> a, b;
  std::vector<float> c;
  generate_inputs(g.type, g.m, g.n, g.k, g.seed, g.c_seeded, a, b, c);
  for (std::size_t i = 0; i < a.size(); ++i) r.input_diffs += a[i] != g.a[i];
  for (std::size_t i = 0; i < b.size(); ++i) r.input_diffs += b[i] != g.b[i];
  for (std::size_t i = 0; i < c.size(); ++i)
    r.input_diffs += flynn::float_to_bits(c[i]) != flynn::float_to_bits(g.c[i]);
  return r;
}

// The model's steady-state interval for m64nNk16: `mma_interval` of the module named
// gmma_n<N> (top.gmma_n64, top.gmma_n256 in scenarios/gmma/calibration_h100.json).
struct ModelStats {
  std::map<unsigned, double> interval;  // by N
};

ModelStats read_model_stats(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ParseError(path + ": expected a readable flynn stats.json, found none");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw ParseError(path + ": expected JSON, found a parse error (" + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("modules") || !j["modules"].is_object())
    throw ParseError(path + ": modules: expected an object of module statistics, found none");
  ModelStats s;
  for (const auto& [name, mod] : j["modules"].items()) {
    const std::size_t at = name.rfind("gmma_n");
    if (at == std::string::npos || (at != 0 && name[at - 1] != '.')) continue;
    const std::string num = name.substr(at + 6);
    if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 4) continue;
    if (!mod.is_object() || !mod.contains("mma_interval")) continue;
    if (!mod["mma_interval"].is_number())
      throw ParseError(path + ": modules." + name + ".mma_interval: expected a number, found " +
                       mod["mma_interval"].dump());
    s.interval[static_cast<unsigned>(std::stoul(num))] = mod["mma_interval"].get<double>();
  }
  return s;
}

std::string hex32(std::uint32_t x) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%08x", x);
  return buf;
}

int report(const std::string& path, const BenchFile& f, const ModelStats* stats, const std::string& stats_path,
           bool require_exact, std::size_t list) {
  std::printf("flynn-gmma-compare: %s\n", path.c_str());
  if (f.source == "synthetic")
    std::printf("source: SYNTHETIC (made from the model's own arithmetic; not a hardware measurement)\n");
  else
    std::printf("source: hardware\n");
  if (!f.device.empty()) std::printf("device: %s\n", f.device.c_str());

  bool any_mismatch = false;
  std::printf("\nGEMMs: D from the file (hardware) against the model's datapath arithmetic (reference_gemm, same A, B, C)\n");
  std::printf("and exact arithmetic (fp64); ulp = distance between the fp32 bit patterns of hardware and model\n");
  std::printf("%-18s %-5s %-11s %-17s %8s %13s %13s %9s %8s\n", "gemm", "type", "m x n x k", "bit-exact",
              "max ulp", "hw max err", "model max err", "hw>bound", "inputs");
  std::vector<std::pair<const Gemm*, GemmResult>> results;
  for (const Gemm& g : f.gemms) results.emplace_back(&g, compare(g));
  for (const auto& [g, r] : results) {
    char shape[32], exact[40];
    std::snprintf(shape, sizeof shape, "%ux%ux%u", g->m, g->n, g->k);
    std::snprintf(exact, sizeof exact, "%zu/%zu", r.exact, r.elements);
    std::printf("%-18s %-5s %-11s %-17s %8llu %13.4g %13.4g %9zu %8s\n", g->name.c_str(), type_name(g->type), shape,
                exact, static_cast<unsigned long long>(r.max_ulp), r.max_err_hw, r.max_err_model, r.hw_over_bound,
                r.input_diffs == 0 ? "seed" : "DIFFER");
  }
  for (const auto& [g, r] : results) {
    if (r.exact == r.elements)
      std::printf("%s: all %zu elements bit-exact with the model\n", g->name.c_str(), r.elements);
    else {
      any_mismatch = true;
      std::printf("%s: %zu of %zu elements differ from the model\n", g->name.c_str(), r.elements - r.exact,
                  r.elements);
    }
    for (std::size_t i = 0; i < r.mismatches.size() && i < list; ++i) {
      const Mismatch& mm = r.mismatches[i];
      std::printf("  %s D[%u][%u]: hardware %s (%.9g) model %s (%.9g), %llu ulp\n", g->name.c_str(), mm.row, mm.col,
                  hex32(mm.hw).c_str(), double(flynn::bits_to_float(mm.hw)), hex32(mm.model).c_str(),
                  double(flynn::bits_to_float(mm.model)),
                  static_cast<unsigned long long>(mm.ulps));
    }
    if (r.mismatches.size() > list) std::printf("  ... %zu more\n", r.mismatches.size() - list);
    if (r.input_diffs)
      std::printf("  warning: %zu of the A, B, C values differ from the generator for seed 0x%016llx\n", r.input_diffs,
                  static_cast<unsigned long long>(g->seed));
  }
  if (f.gemms.empty()) std::printf("(no GEMM in the file)\n");

  // Intervals, grouped by (N, type); the slope between the shortest and the longest chain
  // removes the fixed cost of the first wgmma and of the final wait.
  std::printf("\nIssue interval of dependent m64nNk16 wgmmas (cycles per wgmma)\n");
  if (stats)
    std::printf("model: mma_interval of gmma_n<N> in %s\n", stats_path.c_str());
  else
    std::printf("model: none (pass --model-stats out/calibration_h100/stats.json)\n");
  std::printf("%-5s %-5s %-7s %14s %14s %12s %10s\n", "N", "type", "chains", "hw (slope)", "hw (longest)", "model",
              "model/hw");
  std::map<std::pair<unsigned, int>, std::vector<const Interval*>> groups;
  for (const Interval& iv : f.intervals) groups[{iv.n, static_cast<int>(iv.type)}].push_back(&iv);
  for (const auto& [key, ivs] : groups) {
    const Interval* lo = ivs.front();
    const Interval* hi = ivs.front();
    for (const Interval* iv : ivs) {
      if (iv->wgmmas < lo->wgmmas) lo = iv;
      if (iv->wgmmas > hi->wgmmas) hi = iv;
    }
    const double longest = double(hi->cycles) / double(hi->wgmmas);
    const double hw = hi->wgmmas > lo->wgmmas
                          ? (double(hi->cycles) - double(lo->cycles)) / double(hi->wgmmas - lo->wgmmas)
                          : longest;
    char model[32] = "-", ratio[32] = "-";
    if (stats) {
      const auto it = stats->interval.find(key.first);
      if (it != stats->interval.end()) {
        std::snprintf(model, sizeof model, "%.2f", it->second);
        if (hw > 0) std::snprintf(ratio, sizeof ratio, "%.3f", it->second / hw);
      }
    }
    std::printf("%-5u %-5s %-7zu %14.2f %14.2f %12s %10s\n", key.first, type_name(hi->type), ivs.size(), hw, longest,
                model, ratio);
  }
  if (f.intervals.empty()) std::printf("(no interval in the file)\n");

  if (require_exact && any_mismatch) {
    std::printf("\n--require-bit-exact: D differs from the model\n");
    return 1;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------
// Synthetic sample: the microbenchmark's GEMMs with D from the model itself.
// ---------------------------------------------------------------------------------------
struct Flip {
  std::string gemm;
  unsigned row = 0, col = 0, bit = 0;
};

int synthesize(const std::string& out_path, const Flip* flip) {
  struct Spec {
    const char* name;
    flynn::element_type type;
    unsigned n;
    std::uint64_t seed;
  };
  // The microbenchmark's N = 64 GEMMs (same names and seeds); it also writes N = 256.
  const Spec specs[] = {{"bf16_m64n64k16", flynn::element_type::bf16, 64, 0x464c594e00000001ull},
                        {"f16_m64n64k16", flynn::element_type::f16, 64, 0x464c594e00000002ull}};
  if (flip) {
    bool known = false;
    for (const Spec& s : specs) known = known || flip->gemm == s.name;
    if (!known || flip->row >= 64 || flip->col >= 64 || flip->bit >= 32) {
      std::fprintf(stderr, "flynn-gmma-compare: --flip-bit: expected GEMM:ROW:COL:BIT inside a synthetic GEMM, found %s:%u:%u:%u\n",
                   flip->gemm.c_str(), flip->row, flip->col, flip->bit);
      return 2;
    }
  }
  std::ostringstream o;
  o << kMagic << " " << kVersion << "\n";
  o << "# SYNTHETIC SAMPLE: made by 'flynn-gmma-compare --synthesize' from the model's own arithmetic\n"
       "# (reference_gemm) to test the comparison tool. It is NOT a hardware measurement.\n"
       "# Interval lines: the H100 peak-rate figure of N/2 cycles per m64nNk16 (2048 dense fp16 FMA per\n"
       "# cycle per SM, NVIDIA H100 whitepaper), not measured.\n";
  if (flip)
    o << "# One bit flipped on purpose: bit " << flip->bit << " of D[" << flip->row << "][" << flip->col << "] of "
      << flip->gemm << ".\n";
  o << "source synthetic\n";
  o << "device none (synthetic sample, no GPU)\n";
  for (unsigned n : {64u, 128u, 256u})
    for (const char* t : {"f16", "bf16"})
      for (unsigned chain : {256u, 4096u})
        o << "interval n=" << n << " type=" << t << " wgmmas=" << chain << " cycles=" << chain * (n / 2) << "\n";
  for (const Spec& s : specs) {
    const unsigned m = 64, k = 16, n = s.n;
    std::vector<std::uint16_t> a, b;
    std::vector<float> c, d;
    generate_inputs(s.type, m, n, k, s.seed, true, a, b, c);
    flynn::reference_gemm(s.type, m, n, k, a, b, c, d);
    if (flip && flip->gemm == s.name) {
      const std::size_t at = std::size_t(flip->row) * n + flip->col;
      d[at] = flynn::bits_to_float(flynn::float_to_bits(d[at]) ^ (1u << flip->bit));
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(s.seed));
    o << "gemm name=" << s.name << " type=" << type_name(s.type) << " m=" << m << " n=" << n << " k=" << k
      << " seed=" << buf << " c=seeded\n";
    auto put16 = [&](char tag, unsigned rows, unsigned cols, const std::vector<std::uint16_t>& v) {
      for (unsigned i = 0; i < rows; ++i) {
        o << tag << " " << i;
        for (unsigned j = 0; j < cols; ++j) {
          std::snprintf(buf, sizeof buf, " %04x", v[std::size_t(i) * cols + j]);
          o << buf;
        }
        o << "\n";
      }
    };
    auto put32 = [&](char tag, const std::vector<float>& v) {
      for (unsigned i = 0; i < m; ++i) {
        o << tag << " " << i;
        for (unsigned j = 0; j < n; ++j) o << " " << hex32(flynn::float_to_bits(v[std::size_t(i) * n + j]));
        o << "\n";
      }
    };
    put16('a', m, k, a);
    put16('b', k, n, b);
    put32('c', c);
    put32('d', d);
    o << "end\n";
  }
  std::ofstream out(out_path, std::ios::binary);
  out << o.str();
  out.close();
  if (!out) {
    std::fprintf(stderr, "flynn-gmma-compare: cannot write %s\n", out_path.c_str());
    return 2;
  }
  return 0;
}

void usage(std::FILE* to) {
  std::fprintf(to,
               "usage: flynn-gmma-compare FILE [--model-stats STATS] [--require-bit-exact] [--list N]\n"
               "       flynn-gmma-compare --synthesize OUT [--flip-bit GEMM:ROW:COL:BIT]\n"
               "\n"
               "Compares a GMMA microbenchmark result file (scripts/cuda/gmma_microbench.cu, format\n"
               "'flynn-gmma-bench 1', docs/calibration.md) with the model's arithmetic and intervals.\n"
               "  --model-stats STATS   flynn stats.json with gmma_n<N> modules (mma_interval)\n"
               "  --require-bit-exact   exit 1 when a D element differs from the model\n"
               "  --list N              mismatching elements listed per GEMM (default 8)\n"
               "  --synthesize OUT      write a SYNTHETIC sample (D from the model) for testing\n"
               "  --flip-bit G:R:C:B    with --synthesize: flip bit B of D[R][C] of GEMM G\n"
               "Exit status: 0 parsed (and bit-exact under --require-bit-exact), 1 mismatch under\n"
               "--require-bit-exact, 2 bad input.\n");
}

bool parse_flip(const std::string& s, Flip& f) {
  const std::size_t p3 = s.rfind(':');
  if (p3 == std::string::npos || p3 == 0) return false;
  const std::size_t p2 = s.rfind(':', p3 - 1);
  if (p2 == std::string::npos || p2 == 0) return false;
  const std::size_t p1 = s.rfind(':', p2 - 1);
  if (p1 == std::string::npos || p1 == 0) return false;
  auto num = [](const std::string& v, unsigned& out) {
    if (v.empty() || v.size() > 6 || v.find_first_not_of("0123456789") != std::string::npos) return false;
    out = static_cast<unsigned>(std::stoul(v));
    return true;
  };
  f.gemm = s.substr(0, p1);
  return num(s.substr(p1 + 1, p2 - p1 - 1), f.row) && num(s.substr(p2 + 1, p3 - p2 - 1), f.col) &&
         num(s.substr(p3 + 1), f.bit);
}

}  // namespace

// The tool links the module library, and with it libsystemc, which refers to sc_main; the
// tool has its own main and elaborates nothing.
extern "C" int sc_main(int, char*[]) { return 0; }

int main(int argc, char** argv) {
  std::string file, stats_path, synth_path, flip_text;
  bool require_exact = false;
  std::size_t list = 8;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* opt) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "flynn-gmma-compare: %s: expected a value, found none\n", opt);
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      usage(stdout);
      return 0;
    } else if (arg == "--model-stats") {
      stats_path = value("--model-stats");
    } else if (arg == "--require-bit-exact") {
      require_exact = true;
    } else if (arg == "--list") {
      const std::string v = value("--list");
      if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos) {
        std::fprintf(stderr, "flynn-gmma-compare: --list: expected a count, found '%s'\n", v.c_str());
        return 2;
      }
      list = std::stoul(v);
    } else if (arg == "--synthesize") {
      synth_path = value("--synthesize");
    } else if (arg == "--flip-bit") {
      flip_text = value("--flip-bit");
    } else if (!arg.empty() && arg[0] == '-') {
      std::fprintf(stderr, "flynn-gmma-compare: expected an option from --help, found '%s'\n", arg.c_str());
      return 2;
    } else if (file.empty()) {
      file = arg;
    } else {
      std::fprintf(stderr, "flynn-gmma-compare: expected one FILE, found a second: '%s'\n", arg.c_str());
      return 2;
    }
  }

  if (!synth_path.empty()) {
    if (!file.empty()) {
      std::fprintf(stderr, "flynn-gmma-compare: --synthesize takes no FILE, found '%s'\n", file.c_str());
      return 2;
    }
    Flip flip;
    if (!flip_text.empty() && !parse_flip(flip_text, flip)) {
      std::fprintf(stderr, "flynn-gmma-compare: --flip-bit: expected GEMM:ROW:COL:BIT, found '%s'\n",
                   flip_text.c_str());
      return 2;
    }
    return synthesize(synth_path, flip_text.empty() ? nullptr : &flip);
  }
  if (!flip_text.empty()) {
    std::fprintf(stderr, "flynn-gmma-compare: --flip-bit: expected with --synthesize only\n");
    return 2;
  }
  if (file.empty()) {
    usage(stderr);
    return 2;
  }

  try {
    ModelStats stats;
    if (!stats_path.empty()) stats = read_model_stats(stats_path);
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ParseError(file + ": expected a readable result file, found none");
    Parser parser(file, in);
    const BenchFile f = parser.parse();
    return report(file, f, stats_path.empty() ? nullptr : &stats, stats_path, require_exact, list);
  } catch (const ParseError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
