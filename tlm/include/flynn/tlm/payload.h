// A plain payload, filled in one call: `command` on `length` contiguous bytes at `address`,
// moved from or into `data`, not answered yet (no byte enables, no extensions).
#pragma once

#include <cstdint>

#include <tlm>

namespace flynn {

inline void prepare_payload(tlm::tlm_generic_payload& gp, tlm::tlm_command command, std::uint64_t address,
                            unsigned char* data, unsigned length) {
  gp.set_command(command);
  gp.set_address(address);
  gp.set_data_ptr(data);
  gp.set_data_length(length);
  gp.set_streaming_width(length);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

}  // namespace flynn
