// How a banked target served one request: the wavefronts (passes over its banks, one word
// per bank each) it took. An initiator that counts its memory traffic in wavefronts
// attaches this extension to a request; a banked memory fills it in, so the count follows
// the memory's banks, word size and conflicts instead of a width the initiator assumes. A
// target without banks leaves it as it is (0).
#pragma once

#include <tlm>

namespace flynn {

class wavefront_extension : public tlm::tlm_extension<wavefront_extension> {
 public:
  unsigned wavefronts = 0;

  tlm::tlm_extension_base* clone() const override { return new wavefront_extension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const wavefront_extension&>(other);
  }
};

}  // namespace flynn
