// The trace writers keep their events in a spill_sorter: the files they write do not depend
// on how many events were held in memory, and the trace filter passes a window of time and
// a subset of modules.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <random>
#include <sstream>

#include "flynn/platform/perfetto_writer.h"
#include "flynn/platform/spill_sorter.h"
#include "flynn/platform/trace_filter.h"
#include "flynn/platform/vcd_writer.h"

using namespace flynn;

namespace {
struct rec {
  std::uint64_t key, seq;
};
struct by_key {
  bool operator()(const rec& a, const rec& b) const { return a.key != b.key ? a.key < b.key : a.seq < b.seq; }
};
sc_core::sc_time ns(double t) { return sc_core::sc_time(t, sc_core::SC_NS); }

// The same random events (out of time order, as modules running ahead send them) into a sink.
void feed(trace_sink& s, unsigned n) {
  const int a = s.declare("top.a", "x", 8), b = s.declare("top.b", "y", 1);
  std::mt19937 g(7);
  for (unsigned i = 0; i < n; ++i) {
    const double t = double(g() % 5000);
    s.change(i % 2 ? a : b, ns(t), g() % 4);
    if (s.wants_timeline()) {
      s.slice("top.a", "warp 0", "op" + std::to_string(i % 5), ns(t), ns(t + 3));
      s.span("top.b", "mem", "read", i, ns(t), ns(t + double(g() % 50)));
    }
  }
}
}  // namespace

TEST_CASE("spill_sorter: the order of a sort with runs on disk equals an in-memory sort") {
  std::mt19937 g(1);
  std::vector<rec> all;
  spill_sorter<rec, by_key> s(100);
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const rec r{g() % 300, i};
    all.push_back(r);
    s.push(r);
  }
  CHECK(s.runs() >= 99);
  std::stable_sort(all.begin(), all.end(), [](const rec& a, const rec& b) { return a.key < b.key; });
  std::vector<rec> out;
  s.drain([&](const rec& r) { out.push_back(r); });
  REQUIRE(out.size() == all.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    CHECK(out[i].key == all[i].key);
    CHECK(out[i].seq == all[i].seq);
  }
  CHECK(s.size() == 0);
}

TEST_CASE("spill_sorter: its runs go to $TMPDIR, and a folder that cannot take them is named") {
  struct tmpdir {
    std::string old;
    bool had;
    explicit tmpdir(const char* v) : had(std::getenv("TMPDIR") != nullptr) {
      if (had) old = std::getenv("TMPDIR");
      ::setenv("TMPDIR", v, 1);
    }
    ~tmpdir() { had ? void(::setenv("TMPDIR", old.c_str(), 1)) : void(::unsetenv("TMPDIR")); }
  };
  {
    const tmpdir t("/nonexistent/flynn-tmp");
    spill_sorter<rec, by_key> s(16);  // 16 records in memory, the least it takes
    for (std::uint64_t i = 0; i < 16; ++i) s.push(rec{i, i});
    try {
      s.push(rec{99, 99});  // the 17th record spills the first 16
      FAIL("no error for a temporary folder that does not exist");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).find("temporary file") != std::string::npos);
    }
  }
  {
    const tmpdir t(".");  // a folder that exists: the runs are made there, already unlinked
    spill_sorter<rec, by_key> s(16);
    for (std::uint64_t i = 0; i < 40; ++i) s.push(rec{40 - i, i});
    CHECK(s.runs() == 2);
    std::uint64_t last = 0, n = 0;
    s.drain([&](const rec& r) {
      CHECK(r.key >= last);
      last = r.key;
      ++n;
    });
    CHECK(n == 40);
  }
}

TEST_CASE("perfetto_writer and vcd_writer: the same file whether events spill to disk or not") {
  perfetto_writer small(64), large(1 << 20);
  feed(small, 3000);
  feed(large, 3000);
  CHECK(small.spilled_runs() > 10);
  CHECK(large.spilled_runs() == 0);
  std::ostringstream a, b;
  small.write(a);
  large.write(b);
  CHECK(a.str() == b.str());
  CHECK(a.str().size() > 100000);

  vcd_writer vs(64), vl(1 << 20);
  feed(vs, 3000);
  feed(vl, 3000);
  std::ostringstream c, d;
  vs.write_vcd(c);
  vl.write_vcd(d);
  CHECK(c.str() == d.str());
  const std::string text = c.str();
  CHECK(std::count(text.begin(), text.end(), '#') > 1000);  // (stamps of distinct times)
}

TEST_CASE("trace_filter: a window of time, values at its start, and a module pattern") {
  vcd_writer inner;
  trace_filter f(inner, ns(100), ns(200), "a");
  const int x = f.declare("top.a", "x", 8), y = f.declare("top.b", "y", 8);
  CHECK(inner.signal_count() == 1);  // top.b is left out
  f.change(x, ns(150), 3);  // inside (sent before the earlier changes: out of order)
  f.change(x, ns(50), 1);
  f.change(x, ns(90), 2);   // the last change before the window: its value at 100 ns
  f.change(x, ns(200), 9);  // at the end: left out
  f.change(y, ns(150), 5);
  f.finish();
  std::ostringstream o;
  inner.write_vcd(o);
  const std::string v = o.str();
  CHECK(v.find("#100000\nb10 !") != std::string::npos);
  CHECK(v.find("#150000\nb11 !") != std::string::npos);
  CHECK(v.find("b1001") == std::string::npos);
  CHECK(v.find("#50000") == std::string::npos);
  CHECK(f.matches("top.a"));
  CHECK_FALSE(f.matches("top.b"));
  trace_filter globs(inner, ns(0), ns(1), "top.rf*,tc?");
  CHECK(globs.matches("top.rf2"));
  CHECK(globs.matches("top.tc1"));
  CHECK_FALSE(globs.matches("top.sm"));
}

TEST_CASE("trace_filter: slices and spans are clipped to the window") {
  perfetto_writer inner;
  trace_filter f(inner, ns(100), ns(200), "");
  f.slice("top.a", "w", "before", ns(10), ns(90));
  f.slice("top.a", "w", "across", ns(90), ns(120));
  f.span("top.a", "c", "inside", 1, ns(150), ns(160));
  f.span("top.a", "c", "after", 2, ns(200), ns(260));
  std::ostringstream o;
  inner.write(o);
  const std::string t = o.str();
  CHECK(t.find("before") == std::string::npos);
  CHECK(t.find("after") == std::string::npos);
  CHECK(t.find("\"name\": \"across\", \"pid\": 1, \"tid\": 1, \"ts\": 0.100000, \"dur\": 0.020000") != std::string::npos);
  CHECK(t.find("inside") != std::string::npos);
}
