// An initiator's own note on a payload it sends: which initiator it is and its record of the
// request, so that the response finds the record without a lookup table. The initiator sets
// it before sending and clears it when the transaction ends; targets neither read nor change
// it. A payload without it, or with another owner, is none of the initiator's.
#pragma once

#include <tlm>

namespace flynn {

class owner_extension : public tlm::tlm_extension<owner_extension> {
 public:
  const void* owner = nullptr;
  void* record = nullptr;

  tlm::tlm_extension_base* clone() const override { return new owner_extension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override { *this = static_cast<const owner_extension&>(other); }
  // The record `owner` noted on `gp`, or nullptr.
  template <class Record>
  static Record* record_of(const tlm::tlm_generic_payload& gp, const void* owner) {
    const auto* x = gp.get_extension<owner_extension>();
    return x && x->owner == owner ? static_cast<Record*>(x->record) : nullptr;
  }
};

}  // namespace flynn
