// Statistics groups: members that enter themselves in declaration order, formulas read when
// written, and nested groups listed in their parent's place with prefixed names.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "flynn/common/stats.h"

namespace {

std::vector<std::string> names(const flynn::stats_group& g) {
  std::vector<std::string> r;
  for (const auto& e : g.entries()) r.push_back(e.name);
  return r;
}

// A part of a module with statistics of its own, as a port is.
struct part {
  part(flynn::stats_group& parent, unsigned i)
      : group(parent, "port" + std::to_string(i) + "_", "port " + std::to_string(i) + ": ") {}
  flynn::stats_group group;
  flynn::statistic elements{group, "elements", "elements", "elements moved"};
  flynn::statistic busy{group, "busy_cycles", "cycles", "cycles held"};
};

struct owner {
  flynn::stats_group stats{"m"};
  flynn::statistic hits{stats, "hits", "requests", "lookups that hit"};
  flynn::statistic lookups{stats, "lookups", "requests", "lookups"};
  flynn::stats_group parts{stats, ""};  // filled when the parts are made
  flynn::stat_ratio rate{stats, "hit_rate", hits, lookups, "", "hits / lookups"};
  std::vector<std::unique_ptr<part>> ports;
};

}  // namespace

TEST_CASE("statistic members list in declaration order and formulas read the counters when written") {
  owner o;
  CHECK(names(o.stats) == std::vector<std::string>{"hits", "lookups", "hit_rate"});
  o.hits += 3;
  o.lookups += 4;
  CHECK(o.stats.entries()[2].real() == Approx(0.75));
  o.lookups += 2;
  CHECK(o.stats.entries()[2].real() == Approx(0.5));
}

TEST_CASE("a nested group lists its entries in its parent's place, with prefixed names and descriptions") {
  owner o;
  for (unsigned i = 0; i < 2; ++i) o.ports.push_back(std::make_unique<part>(o.parts, i));
  o.ports[1]->elements += 7;
  CHECK(names(o.stats) == std::vector<std::string>{"hits", "lookups", "port0_elements", "port0_busy_cycles",
                                                   "port1_elements", "port1_busy_cycles", "hit_rate"});
  const auto& e = o.stats.entries()[4];
  CHECK(e.description == "port 1: elements moved");
  CHECK(e.unit == "elements");
  CHECK(e.counter->value() == 7);
  CHECK(o.ports[0]->group.entries().size() == 2);
  CHECK(o.ports[0]->group.entries()[0].name == "elements");  // its own listing is not prefixed
}

TEST_CASE("groups nest to any depth and an entry added later to a nested group is listed in its place") {
  flynn::stats_group top("m");
  flynn::statistic first{top, "first", "", "first"};
  flynn::stats_group outer(top, "a_", "A: ");
  flynn::statistic last{top, "last", "", "last"};
  flynn::stats_group inner(outer, "b_", "B: ");
  CHECK(names(top) == std::vector<std::string>{"first", "last"});
  flynn::statistic x{inner, "x", "", "x"};
  flynn::statistic y{outer, "y", "", "y"};
  CHECK(names(top) == std::vector<std::string>{"first", "a_b_x", "a_y", "last"});
  CHECK(top.entries()[1].description == "A: B: x");
}
