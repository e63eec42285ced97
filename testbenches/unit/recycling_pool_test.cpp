// recycling_pool: blocks given back are handed out again by size; containers work on it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "flynn/common/recycling_pool.h"

TEST_CASE("recycling_pool: a block given back is the next of its size handed out") {
  flynn::recycling_pool pool;
  void* a = pool.allocate(48);
  void* b = pool.allocate(48);
  CHECK(a != b);
  pool.deallocate(a, 48);
  void* c = pool.allocate(16);  // another size: not the 48-byte block
  CHECK(c != a);
  CHECK(pool.allocate(48) == a);
  pool.deallocate(b, 48);
  pool.deallocate(c, 16);
  pool.deallocate(a, 48);
}

TEST_CASE("recycling_pool: a multimap on the pool keeps its elements and their order by key") {
  flynn::recycling_pool pool;
  using alloc = flynn::recycling_allocator<std::pair<const std::uint64_t, int>>;
  std::unordered_multimap<std::uint64_t, int, std::hash<std::uint64_t>, std::equal_to<std::uint64_t>, alloc> m{
      alloc(&pool)};
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) m.emplace(static_cast<std::uint64_t>(i % 7), i);
    const auto r = m.equal_range(3);
    std::vector<int> seen;
    for (auto it = r.first; it != r.second; ++it) seen.push_back(it->second);
    REQUIRE(seen.size() == 14);
    for (std::size_t k = 0; k < seen.size(); ++k) CHECK(seen[k] % 7 == 3);
    m.clear();  // the nodes go back to the pool for the next round
  }
  std::vector<std::uint64_t, flynn::recycling_allocator<std::uint64_t>> v{flynn::recycling_allocator<std::uint64_t>(&pool)};
  for (std::uint64_t i = 0; i < 1000; ++i) v.push_back(i);
  CHECK(v[999] == 999);
}
