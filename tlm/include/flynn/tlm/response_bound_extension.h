// A target's promise about one request, made when it accepts the request (BEGIN_REQ): the
// response (BEGIN_RESP) will not come before `earliest`. An initiator that attaches this
// extension may use the promise to run ahead of simulated time while the request is in
// flight (its decisions cannot depend on a response before then). A target that cannot
// promise anything leaves it unset; the banked memory promises the request's arrival plus
// its latency, the least any request takes there.
#pragma once

#include <systemc>
#include <tlm>

namespace flynn {

class response_bound_extension : public tlm::tlm_extension<response_bound_extension> {
 public:
  bool promised = false;
  sc_core::sc_time earliest;

  tlm::tlm_extension_base* clone() const override { return new response_bound_extension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const response_bound_extension&>(other);
  }
};

}  // namespace flynn
