// A plain payload, filled in one call: `command` on `length` contiguous bytes at `address`,
// moved from or into `data`, not answered yet (no byte enables, no extensions), every other
// attribute at the base protocol's initial value (IEEE 1666-2011 14.8-14.17: no DMI hint,
// TLM_MIN_PAYLOAD). A request without data (TLM_IGNORE_COMMAND, length 0) gets a streaming
// width of 1: the base protocol forbids a streaming width of 0 whatever the command.
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
  gp.set_streaming_width(length ? length : 1);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_dmi_allowed(false);
  gp.set_gp_option(tlm::TLM_MIN_PAYLOAD);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// The base protocol's initial state (what a freshly constructed payload holds): no command,
// no data, no byte enables, no DMI hint, TLM_MIN_PAYLOAD, TLM_INCOMPLETE_RESPONSE. Extensions
// are the caller's to clear.
inline void reset_payload(tlm::tlm_generic_payload& gp) {
  gp.set_command(tlm::TLM_IGNORE_COMMAND);
  gp.set_address(0);
  gp.set_data_ptr(nullptr);
  gp.set_data_length(0);
  gp.set_streaming_width(0);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_dmi_allowed(false);
  gp.set_gp_option(tlm::TLM_MIN_PAYLOAD);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

}  // namespace flynn
