// The golden interpreters' warp-wide pieces, shared by the SIMT ISA's and the PTX
// interpreter: the exchange of shfl.sync and elect.sync, and the report of a barrier
// deadlock.
#include <string>

#include "flynn/common/format.h"
#include "flynn/platform/simt_interp.h"

namespace flynn::simt {

namespace {

// "warp 0" / "warps 0, 2, 3"
std::string warp_list(const std::set<unsigned>& warps) {
  std::string s = warps.size() == 1 ? "warp " : "warps ";
  bool first = true;
  for (unsigned w : warps) {
    s += (first ? "" : ", ") + std::to_string(w);
    first = false;
  }
  return s;
}

}  // namespace

std::string shuffle_exchange::arrive(unsigned warp, unsigned lane, std::uint32_t pc, const arrival& a,
                                     std::uint32_t present) {
  if (!((a.mask >> lane) & 1u))
    return "lane " + std::to_string(lane) + " executes " + a.name + " but is not in its membermask " + hex(a.mask);
  pending& p = warps_[warp];
  if (!p.arrived.empty() && p.pc != pc)
    return "threads of warp " + std::to_string(warp) + " wait at two " + a.name + " instructions (PCs " + std::to_string(p.pc) +
           " and " + std::to_string(pc) + ")";
  p.pc = pc;
  p.arrived[lane] = a;
  return complete(p, present);
}

std::string shuffle_exchange::retry(unsigned warp, std::uint32_t present) {
  const auto it = warps_.find(warp);
  if (it == warps_.end() || it->second.arrived.empty()) return {};
  return complete(it->second, present);
}

std::string shuffle_exchange::complete(pending& p, std::uint32_t present) {
  std::uint32_t named = 0, here = 0;
  for (const auto& [lane, a] : p.arrived) {
    named |= a.mask;
    here |= 1u << lane;
  }
  if ((named & present & ~here) != 0) return {};  // still waiting
  for (const auto& [lane, a] : p.arrived) {
    const int bval = static_cast<int>(a.b & 31), cval = static_cast<int>(a.c & 31), seg = static_cast<int>((a.c >> 8) & 31);
    const int l = static_cast<int>(lane), max_lane = (l & seg) | (cval & ~seg);
    int j = l;
    bool ok = false;
    switch (a.mode) {
      case shuffle_mode::up: j = l - bval; ok = j >= max_lane; break;
      case shuffle_mode::down: j = l + bval; ok = j <= max_lane; break;
      case shuffle_mode::bfly: j = l ^ bval; ok = j <= max_lane; break;
      case shuffle_mode::idx: j = (l & seg) | (bval & ~seg); ok = j <= max_lane; break;
    }
    if (!ok) j = l;
    const auto src = p.arrived.find(static_cast<unsigned>(j));
    if (src == p.arrived.end())
      return std::string(a.name) + ": lane " + std::to_string(lane) + " reads lane " + std::to_string(j) + ", which does not execute it";
    p.done[lane] = {src->second.value, ok};
  }
  p.arrived.clear();
  return {};
}

std::uint32_t shuffle_exchange::present(unsigned w, unsigned warp_size, std::size_t threads,
                                        const std::function<bool(std::size_t)>& exited) {
  std::uint32_t m = 0;
  for (unsigned l = 0; l < warp_size && l < 32; ++l) {
    const std::size_t t = std::size_t(w) * warp_size + l;
    if (t < threads && !exited(t)) m |= 1u << l;
  }
  return m;
}

bool shuffle_exchange::take(unsigned warp, unsigned lane, result& r) {
  const auto it = warps_.find(warp);
  if (it == warps_.end()) return false;
  const auto d = it->second.done.find(lane);
  if (d == it->second.done.end()) return false;
  r = d->second;
  it->second.done.erase(d);
  return true;
}

std::string barrier_deadlock(unsigned block, const std::map<std::uint32_t, std::set<unsigned>>& waiting,
                             const std::set<unsigned>& exited, const std::function<std::string(std::uint32_t)>& where) {
  std::string f = "block " + std::to_string(block) + ": barrier deadlock: ";
  bool first = true;
  for (const auto& w : waiting) {
    f += (first ? "threads of " : " and threads of ") + warp_list(w.second) + " wait at " + where(w.first);
    first = false;
  }
  return f + " but threads of " + warp_list(exited) + " have exited";
}

}  // namespace flynn::simt
