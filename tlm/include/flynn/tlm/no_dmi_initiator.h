// The backward interface of an initiator that keeps no DMI pointers: an invalidation from
// the target has nothing to drop. Initiators derive from it and implement nb_transport_bw
// (or, making blocking calls only, take flynn::lt_initiator's answer).
#pragma once

#include <tlm>

namespace flynn {

class no_dmi_initiator : public tlm::tlm_bw_transport_if<> {
 public:
  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override {
    (void)start;
    (void)end;
  }
};

}  // namespace flynn
