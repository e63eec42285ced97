// Flynn benchmarks (not tests): each case runs in a child process of its own (SystemC
// elaborates once per process, and peak memory is then per case); the parent prints a
// table and writes bench.json. Figures are host throughput, measured side by side.
//   flynn-bench [--quick] [--repeat N] [--cpu N] [--out DIR]
//                                             all cases, each N times (default 5; 1 with
//                                             --quick), the fastest run kept; --cpu: all
//                                             on that CPU
//   flynn-bench --case NAME --count N         one case, one JSON line on stdout
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <random>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

#include "flynn/common/registry.h"
#include "flynn/tensor/numeric.h"
#include "flynn/memory/banked_memory.h"
#include "flynn/platform/platform.h"
#include "flynn/platform/scenario.h"
#include "flynn/traffic/traffic_generator.h"

#ifndef FLYNN_SOURCE_DIR
#define FLYNN_SOURCE_DIR "."
#endif

using nlohmann::json;

namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

// The practical limit: a trivial process woken by a clock, one activation per cycle.
struct ticker : sc_core::sc_module {
  sc_core::sc_in<bool> clk;
  std::uint64_t ticks = 0;
  SC_HAS_PROCESS(ticker);
  explicit ticker(const sc_core::sc_module_name& n) : sc_core::sc_module(n), clk("clk") {
    SC_METHOD(tick);
    sensitive << clk.pos();
    dont_initialize();
  }
  void tick() { ++ticks; }
};

json case_kernel(std::uint64_t n) {
  sc_core::sc_clock clk("clk", 1, sc_core::SC_NS);
  ticker t("t");
  t.clk(clk);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start(sc_core::sc_time(double(n), sc_core::SC_NS));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return {{"events", t.ticks}, {"seconds", s}, {"rate", double(t.ticks) / s}, {"unit", "events/s"}};
}

json case_memory(std::uint64_t n, bool at) {
  flynn::banked_memory::params mp;
  mp.size_bytes = 1 << 20;
  mp.banks = 16;
  mp.latency = 11;
  flynn::traffic_generator::params gp;
  gp.at = at;
  gp.max_outstanding = 16;
  gp.quantum = 10000;
  flynn::traffic_stream s;
  s.stride = 8;
  s.range_bytes = mp.size_bytes;
  s.count = n / 2;
  s.write = true;
  gp.streams = {s};
  s.write = false;
  s.stride = 24;
  gp.streams.push_back(s);
  flynn::banked_memory mem("mem", mp);
  flynn::traffic_generator gen("gen", gp);
  gen.out.bind(mem.port(0));
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!gen.done() || gen.requests_done() != n) throw std::runtime_error("benchmark traffic did not complete");
  const std::uint64_t cycles = static_cast<std::uint64_t>(sc_core::sc_time_stamp() / mem.clock_period());
  return {{"transactions", n}, {"cycles", cycles}, {"seconds", sec}, {"rate", double(n) / sec},
          {"unit", "transactions/s"}};
}

// Strip-mined DAXPY over n elements on the chained 2-load + 1-store-port vector machine,
// through the whole platform (scenario, assembler, golden check after the timed part).
json case_daxpy(std::uint64_t n) {
  flynn::scenario_doc sd = flynn::load_scenario_doc(FLYNN_SOURCE_DIR "/scenarios/vector/daxpy.json");
  const std::uint64_t y = 24 + 8 * n;
  for (const std::string& s :
       {"modules.mem.size_bytes=" + std::to_string(y + 8 * n + 8), "workload.init.0.values=[" + std::to_string(n) + "]",
        "workload.init.1.random_doubles=" + std::to_string(n), "workload.init.2.values=[" + std::to_string(y) + "]",
        "workload.init.3.address=" + std::to_string(y), "workload.init.3.random_doubles=" + std::to_string(n)})
    flynn::apply_override(sd, s);
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);
  const auto t0 = std::chrono::steady_clock::now();
  flynn::run_result r = p.simulate(0);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.failed()) throw std::runtime_error("daxpy: " + r.message);
  p.verify(r);
  if (r.failed()) throw std::runtime_error("daxpy: " + r.message);
  std::uint64_t ops = 0;
  for (auto* m : p.modules())
    for (const auto& e : m->stats().entries())
      if (e.name == "element_ops") ops += e.counter->value();
  return {{"elements", n}, {"element_ops", ops}, {"cycles", r.cycles}, {"instructions", p.instructions()},
          {"seconds", sec}, {"rate", double(ops) / sec}, {"unit", "element ops/s"}};
}

// SIMT core: a scenario scaled by --set overrides, simulation timed alone.
json case_simt(const std::string& scenario, const std::vector<std::string>& sets) {
  flynn::scenario_doc sd = flynn::load_scenario_doc(FLYNN_SOURCE_DIR "/scenarios/simt/" + scenario);
  for (const auto& s : sets) flynn::apply_override(sd, s);
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);
  const auto t0 = std::chrono::steady_clock::now();
  flynn::run_result r = p.simulate(0);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.failed()) p.verify(r);
  if (r.failed()) throw std::runtime_error(scenario + ": " + r.message);
  return {{"warp_instructions", p.instructions()}, {"cycles", r.cycles}, {"seconds", sec},
          {"rate", double(p.instructions()) / sec}, {"unit", "warp instructions/s"}};
}

// Vector add over n elements (n a multiple of 32), 32 resident warps.
json case_simt_vecadd(std::uint64_t n) {
  const std::uint64_t a = 0, b = 4 * n, c = 8 * n;
  return case_simt("vecadd_warps.json",
                   {"modules.gmem.size_bytes=" + std::to_string(12 * n + 4096), "workload.grid=" + std::to_string(n / 32),
                    "workload.params=[" + std::to_string(n) + "," + std::to_string(a) + "," + std::to_string(b) + "," +
                        std::to_string(c) + "]",
                    "workload.init.0.random=" + std::to_string(n), "workload.init.1.address=" + std::to_string(b),
                    "workload.init.1.random=" + std::to_string(n)});
}

// The divergent kernel over n threads (n a multiple of 64).
json case_simt_divergence(std::uint64_t n) {
  return case_simt("divergence.json", {"modules.gmem.size_bytes=" + std::to_string(8 * n + 4096),
                                       "workload.grid=" + std::to_string(n / 64),
                                       "workload.params=[0," + std::to_string(4 * n) + "]",
                                       "workload.init.0.random=" + std::to_string(n)});
}

// h100_sm_gemm at M = N = 512 and depth k: the whole run (simulation and both golden checks)
// timed, then a plain host GEMM of the same size (the reference arithmetic) timed in the same
// process. The scenario's own host GEMM reference is left out: it is the computation the run
// is compared with, and would count it on both sides.
json case_gemm(std::uint64_t k) {
  flynn::scenario_doc sd = flynn::load_scenario_doc(FLYNN_SOURCE_DIR "/scenarios/gmma/h100_sm_gemm.json");
  sd.doc["workload"].erase("reference");
  const std::uint64_t a = 0, b = 512 * k * 2, c = 2 * b;
  for (const std::string& set :
       {"workload.params=[512,512," + std::to_string(k) + "," + std::to_string(c) + ",4]",
        "workload.tensor_maps.0.dims=[" + std::to_string(k) + ",512]",
        "workload.tensor_maps.0.strides=[" + std::to_string(2 * k) + "]",
        "workload.tensor_maps.1.global=" + std::to_string(b),
        "workload.tensor_maps.1.dims=[" + std::to_string(k) + ",512]",
        "workload.tensor_maps.1.strides=[" + std::to_string(2 * k) + "]",
        "workload.init.0.address=" + std::to_string(a), "workload.init.0.random_bf16=" + std::to_string(512 * k),
        "workload.init.1.address=" + std::to_string(b), "workload.init.1.random_bf16=" + std::to_string(512 * k),
        "modules.gmem.size_bytes=" + std::to_string(c + 512 * 512 * 4)})
    flynn::apply_override(sd, set);
  flynn::module_registry reg;
  flynn::register_builtin_modules(reg);
  flynn::platform p(sd, reg);
  const auto t0 = std::chrono::steady_clock::now();
  flynn::run_result r = p.simulate(0);
  if (!r.failed()) p.verify(r);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.failed()) throw std::runtime_error("h100_sm_gemm: " + r.message);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<std::uint16_t> ha(512 * k), hb(512 * k);
  for (auto& x : ha) x = flynn::from_f32(flynn::element_type::bf16, u(rng));
  for (auto& x : hb) x = flynn::from_f32(flynn::element_type::bf16, u(rng));
  std::vector<float> hc(512 * 512, 0.0f), hd;
  const auto t1 = std::chrono::steady_clock::now();
  flynn::reference_gemm(flynn::element_type::bf16, 512, 512, static_cast<unsigned>(k), ha, hb, hc, hd);
  const double host = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
  const double fmas = 512.0 * 512.0 * double(k);
  return {{"k", k}, {"cycles", r.cycles}, {"seconds", sec}, {"host_gemm_seconds", host},
          {"ratio_to_host_gemm", sec / host}, {"rate", fmas / sec}, {"unit", "FMA/s"}};
}

// Soak: the looping kernel run for about n simulated cycles (456 cycles per iteration);
// peak memory must not grow with simulated time.
json case_soak(std::uint64_t n) {
  const std::uint64_t iterations = std::max<std::uint64_t>(1, n / 456);
  json r = case_simt("soak.json", {"workload.params=[" + std::to_string(iterations) + "]"});
  r["iterations"] = iterations;
  return r;
}

json run_case(const std::string& name, std::uint64_t n) {
  json r;
  if (name == "kernel") r = case_kernel(n);
  else if (name == "memory_lt") r = case_memory(n, false);
  else if (name == "memory_at") r = case_memory(n, true);
  else if (name == "vector_daxpy") r = case_daxpy(n);
  else if (name == "simt_vecadd" || name == "simt_vecadd_2x") r = case_simt_vecadd(n);
  else if (name == "simt_divergence") r = case_simt_divergence(n);
  else if (name == "h100_sm_gemm" || name == "h100_sm_gemm_2k") r = case_gemm(n);
  else if (name == "soak_10m" || name == "soak_100m") r = case_soak(n);
  else throw std::runtime_error("unknown case " + name);
  r["case"] = name;
  r["peak_rss_mb"] = peak_rss_mb();
  return r;
}

json spawn(const char* self, const std::string& name, std::uint64_t n) {
  int pipefd[2];
  if (pipe(pipefd) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipefd[1], 1);
    close(pipefd[0]);
    const std::string count = std::to_string(n);
    execl(self, self, "--case", name.c_str(), "--count", count.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipefd[1]);
  std::string out;
  char buf[4096];
  ssize_t k;
  while ((k = read(pipefd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(k));
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("benchmark case " + name + " failed");
  return json::parse(out);
}

struct row {
  std::string name, what;
  double target;  // rate target, 0: none
  double mem_target_mb;
};

}  // namespace

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.size() == 4 && args[0] == "--case") {
      std::cout << run_case(args[1], std::stoull(args[3])).dump() << "\n";
      return 0;
    }
    bool quick = false;
    std::string out = "out/bench";
    unsigned repeat = 0;  // 0: 5, or 1 with --quick
    long cpu = -1;        // -1: not pinned
    const auto whole = [&](std::size_t i, const char* opt, unsigned long lo, unsigned long hi, unsigned long& v) {
      char* end = nullptr;
      v = std::strtoul(args[i].c_str(), &end, 10);
      if (args[i].empty() || args[i][0] == '-' || *end || v < lo || v > hi) {
        std::cerr << "flynn-bench: " << opt << ": expected a whole number from " << lo << " to " << hi << ", found \""
                  << args[i] << "\"\n";
        return false;
      }
      return true;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
      unsigned long v = 0;
      if (args[i] == "--quick") quick = true;
      else if (args[i] == "--out" && i + 1 < args.size()) out = args[++i];
      else if (args[i] == "--repeat" && i + 1 < args.size()) {
        if (!whole(++i, "--repeat", 1, 100, v)) return 2;
        repeat = static_cast<unsigned>(v);
      } else if (args[i] == "--cpu" && i + 1 < args.size()) {
        if (!whole(++i, "--cpu", 0, CPU_SETSIZE - 1, v)) return 2;
        cpu = static_cast<long>(v);
      } else {
        std::cerr << "usage: flynn-bench [--quick] [--repeat N (1 to 100)] [--cpu N] [--out DIR]\n";
        return 2;
      }
    }
    // Every case process on one CPU (they inherit the affinity): the CPUs of a shared
    // machine can differ in speed and load, and the ratios compare cases with each other.
    if (cpu >= 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(static_cast<int>(cpu), &set);
      if (sched_setaffinity(0, sizeof set, &set) != 0) {
        std::cerr << "flynn-bench: --cpu " << cpu << ": this process may not run on that CPU\n";
        return 2;
      }
    }
    if (repeat == 0) repeat = quick ? 1 : 5;
    const std::uint64_t scale = quick ? 10 : 1;
    struct plan {
      std::string name, what;
      std::uint64_t n;
      double target, mem_mb;
    };
    const std::vector<plan> plans = {
        {"kernel", "SystemC kernel: clocked process activations", 20000000 / scale, 0, 0},
        {"memory_lt", "banked memory + traffic, LT (temporal decoupling)", 10000000 / scale, 10e6, 100},
        {"memory_at", "banked memory + traffic, AT (4-phase)", 10000000 / scale, 1e6, 100},
        {"vector_daxpy", "vector machine: strip-mined DAXPY, chained, 3 ports", 1048576 / scale, 10e6, 1e9},
        {"simt_vecadd", "SIMT core: vecadd, 32 resident warps", 1048576 / scale, 5e6, 1e9},
        {"simt_vecadd_2x", "SIMT core: vecadd, twice the grid", 2 * 1048576 / scale, 5e6, 1e9},
        {"simt_divergence", "SIMT core: divergent if/else kernel", 1048576 / scale, 2e6, 1e9},
        {"h100_sm_gemm", "GMMA SM: 512 x 512 x K bf16 GEMM, K = count", quick ? 128u : 512u, 0, 0},
        {"h100_sm_gemm_2k", "GMMA SM: the same GEMM at twice the depth", quick ? 256u : 1024u, 0, 0},
        {"soak_10m", "SIMT core: a looping kernel for ~10 M cycles", 10000000 / scale, 0, 0},
        {"soak_100m", "SIMT core: the same for ~100 M cycles", 100000000 / scale, 0, 0},
    };
    json all = json::array();
    std::cout << std::left << std::setw(17) << "case" << std::setw(52) << "what" << std::right
              << std::setw(14) << "count" << std::setw(10) << "seconds" << std::setw(16) << "rate/s"
              << std::setw(12) << "target/s" << std::setw(10) << "peak MB" << "\n";
    // Every case runs `repeat` times, each in a fresh process, in rounds: one run of each
    // case per round, so that cases compared with each other (2x / 1x, the kernel rate) see
    // the machine's load alike. Per case the fastest run is kept (the machines are shared:
    // the fastest is the least disturbed), with the highest peak memory of all and, for the
    // GEMM, the fastest plain host GEMM of all.
    std::vector<std::vector<json>> runs(plans.size());
    for (unsigned k = 0; k < repeat; ++k)
      for (std::size_t i = 0; i < plans.size(); ++i) runs[i].push_back(spawn(argv[0], plans[i].name, plans[i].n));
    double kernel_rate = 0;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      const plan& p = plans[i];
      json r;
      double peak = 0, host_gemm = 0;
      json every = json::array();
      for (unsigned k = 0; k < repeat; ++k) {
        const json& x = runs[i][k];
        every.push_back(x["seconds"]);
        peak = std::max(peak, x["peak_rss_mb"].get<double>());
        if (x.contains("host_gemm_seconds"))
          host_gemm = k == 0 ? x["host_gemm_seconds"].get<double>() : std::min(host_gemm, x["host_gemm_seconds"].get<double>());
        if (k == 0 || x["seconds"].get<double>() < r["seconds"].get<double>()) r = x;
      }
      r["peak_rss_mb"] = peak;
      r["runs"] = repeat;
      r["seconds_of_each_run"] = every;
      if (r.contains("host_gemm_seconds")) {
        r["host_gemm_seconds"] = host_gemm;
        r["ratio_to_host_gemm"] = r["seconds"].get<double>() / host_gemm;
      }
      r["what"] = p.what;
      if (p.target > 0) {
        r["target"] = p.target;
        r["meets_target"] = r["rate"].get<double>() >= p.target && r["peak_rss_mb"].get<double>() < p.mem_mb;
      }
      if (p.name == "kernel") kernel_rate = r["rate"].get<double>();
      if (p.name == "h100_sm_gemm_2k")
        for (const auto& x : all)
          if (x["case"] == "h100_sm_gemm") r["host_time_ratio_to_1x"] = r["seconds"].get<double>() / x["seconds"].get<double>();
      if (p.name == "simt_vecadd_2x") {
        for (const auto& x : all) {
          if (x["case"] == "simt_vecadd")
            r["host_time_ratio_to_1x"] = r["seconds"].get<double>() / x["seconds"].get<double>();
        }
      }
      else if (kernel_rate > 0) r["ratio_to_kernel"] = r["rate"].get<double>() / kernel_rate;
      // Simulated cycles per host second against the bare clocked process of the same run.
      if (kernel_rate > 0 && r.contains("cycles") && r["seconds"].get<double>() > 0)
        r["cycles_per_second_to_kernel"] = r["cycles"].get<double>() / r["seconds"].get<double>() / kernel_rate;
      std::cout << std::left << std::setw(17) << p.name << std::setw(52) << p.what << std::right
                << std::setw(14) << p.n << std::setw(10) << std::fixed << std::setprecision(2)
                << r["seconds"].get<double>() << std::setw(16) << std::setprecision(0)
                << r["rate"].get<double>() << std::setw(12)
                << (p.target > 0 ? std::to_string(static_cast<long long>(p.target)) : "-")
                << std::setw(10) << std::setprecision(1) << r["peak_rss_mb"].get<double>() << "\n";
      all.push_back(r);
    }
    std::filesystem::create_directories(out);
    std::ofstream(out + "/bench.json") << json{{"quick", quick}, {"cpu", cpu >= 0 ? json(cpu) : json(nullptr)}, {"results", all}}.dump(2) << "\n";
    for (const auto& x : all) {
      if (x["case"] == "simt_vecadd")
        std::cout << "simt_vecadd: " << std::setprecision(0) << x["rate"].get<double>()
                  << " warp instructions/s (target >= 5000000), " << x["cycles"].get<double>() / x["seconds"].get<double>()
                  << " simulated cycles/s = " << std::setprecision(2) << x.value("cycles_per_second_to_kernel", 0.0)
                  << " x the clocked-process rate of this run (target >= 3)\n";
      if (x["case"] == "simt_vecadd_2x")
        std::cout << "simt_vecadd host time, 2x grid / 1x grid: " << std::setprecision(3)
                  << x["host_time_ratio_to_1x"].get<double>() << " (target <= 2.1)\n";
      if (x["case"] == "h100_sm_gemm" || x["case"] == "h100_sm_gemm_2k")
        std::cout << x["case"].get<std::string>() << " K = " << x["k"].get<std::uint64_t>() << ": "
                  << x["cycles"].get<std::uint64_t>() << " cycles, " << std::setprecision(3) << x["seconds"].get<double>()
                  << " s host, plain host GEMM " << x["host_gemm_seconds"].get<double>() << " s, ratio "
                  << x["ratio_to_host_gemm"].get<double>() << " (target <= 2), peak "
                  << std::setprecision(1) << x["peak_rss_mb"].get<double>() << " MB\n";
      if (x["case"] == "h100_sm_gemm_2k")
        std::cout << "h100_sm_gemm host time, 2K / K: " << std::setprecision(3)
                  << x["host_time_ratio_to_1x"].get<double>() << " (target <= 2.1)\n";
      if (x["case"] == "soak_100m")
        for (const auto& y : all)
          if (y["case"] == "soak_10m")
            std::cout << "soak: peak " << std::setprecision(1) << y["peak_rss_mb"].get<double>() << " MB at "
                      << y["cycles"].get<std::uint64_t>() << " cycles, " << x["peak_rss_mb"].get<double>() << " MB at "
                      << x["cycles"].get<std::uint64_t>() << " cycles (ratio " << std::setprecision(3)
                      << x["peak_rss_mb"].get<double>() / y["peak_rss_mb"].get<double>() << ")\n";
    }
    if (cpu >= 0) std::cout << "every case ran on CPU " << cpu << "\n";
    std::cout << "written: " << out << "/bench.json\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "flynn-bench: " << e.what() << "\n";
    return 1;
  }
}
