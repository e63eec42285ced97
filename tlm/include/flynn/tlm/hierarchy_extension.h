// What a request is to the timing stages of a memory hierarchy (caches, crossbars, DRAM in
// front of a data array; see docs/modules/cache.md). The stages keep timing, not data: the
// data array behind the last stage holds the contents, and a request reaches it at the
// cycle the hierarchy has served it.
//   serviced:    a cache level has already timed this request (a hit, or a miss whose line
//                has come): the stages below pass it straight on to the array.
//   timing_only: a stage's own request (a fill, a write-back), sent as TLM_IGNORE_COMMAND:
//                the stages below time it (as a write when `write`), and the array moves
//                no data for it.
//   cache_global: a load cached at the global level only (PTX ld.global.cg): a cache level
//                that bypasses such loads (an L1) passes it on without allocating.
#pragma once

#include <tlm>

namespace flynn {

class hierarchy_extension : public tlm::tlm_extension<hierarchy_extension> {
 public:
  bool serviced = false;
  bool timing_only = false;
  bool write = false;
  bool cache_global = false;

  tlm::tlm_extension_base* clone() const override { return new hierarchy_extension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const hierarchy_extension&>(other);
  }
};

}  // namespace flynn
