// What the base-protocol checker says of a payload: its attributes as the initiator set
// them (to find what a callee changed), and the names of commands, sync values, phases and
// DMI access rights in its messages.
#pragma once

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

namespace flynn {

struct protocol_terms {
  // A payload's attributes (and the contents of its write data and byte enables) as sent.
  struct attributes {
    tlm::tlm_command cmd = tlm::TLM_IGNORE_COMMAND;
    std::uint64_t address = 0;
    unsigned char* data = nullptr;
    unsigned length = 0;
    unsigned streaming_width = 0;
    unsigned char* byte_enable = nullptr;
    unsigned byte_enable_length = 0;
    std::vector<unsigned char> write_data;  // contents for writes: targets must not change
    std::vector<unsigned char> be_data;     // byte enable contents
  };

  static std::string hex(std::uint64_t v) {
    std::ostringstream o;
    o << "0x" << std::hex << v;
    return o.str();
  }
  static const char* cmd_name(tlm::tlm_command c) {
    switch (c) {
      case tlm::TLM_READ_COMMAND: return "read";
      case tlm::TLM_WRITE_COMMAND: return "write";
      default: return "ignore";
    }
  }
  static std::string describe(const tlm::tlm_generic_payload& gp) {
    std::ostringstream o;
    o << cmd_name(gp.get_command()) << " of " << gp.get_data_length() << " B at "
      << hex(gp.get_address());
    return o.str();
  }
  static std::string sync_name(tlm::tlm_sync_enum s) {
    switch (s) {
      case tlm::TLM_ACCEPTED: return "TLM_ACCEPTED";
      case tlm::TLM_UPDATED: return "TLM_UPDATED";
      default: return "TLM_COMPLETED";
    }
  }
  static bool allows(tlm::tlm_dmi::dmi_access_e a, tlm::tlm_command cmd) {
    if (cmd == tlm::TLM_READ_COMMAND) return (a & tlm::tlm_dmi::DMI_ACCESS_READ) != 0;
    if (cmd == tlm::TLM_WRITE_COMMAND) return (a & tlm::tlm_dmi::DMI_ACCESS_WRITE) != 0;
    return a != tlm::tlm_dmi::DMI_ACCESS_NONE;
  }

  static std::string phase_str(const tlm::tlm_phase& ph) { return ph.get_name(); }


  static void capture(const tlm::tlm_generic_payload& gp, attributes& a) {
    a.cmd = gp.get_command();
    a.address = gp.get_address();
    a.data = gp.get_data_ptr();
    a.length = gp.get_data_length();
    a.streaming_width = gp.get_streaming_width();
    a.byte_enable = gp.get_byte_enable_ptr();
    a.byte_enable_length = gp.get_byte_enable_length();
    a.write_data.clear();
    a.be_data.clear();
    if (a.cmd == tlm::TLM_WRITE_COMMAND && a.data && a.length)
      a.write_data.assign(a.data, a.data + a.length);
    if (a.byte_enable && a.byte_enable_length)
      a.be_data.assign(a.byte_enable, a.byte_enable + a.byte_enable_length);
  }
  // The attributes of gp that differ from a (as captured before the call), in words.
  static std::vector<std::string> changes(const tlm::tlm_generic_payload& gp, const attributes& a) {
    std::vector<std::string> changed;
    auto num = [&](const char* what, std::uint64_t was, std::uint64_t now) {
      if (was != now) changed.push_back(std::string(what) + " " + hex(was) + " -> " + hex(now));
    };
    if (gp.get_command() != a.cmd)
      changed.push_back(std::string("command ") + cmd_name(a.cmd) + " -> " +
                        cmd_name(gp.get_command()));
    num("address", a.address, gp.get_address());
    if (gp.get_data_ptr() != a.data) changed.push_back("data pointer");
    num("data length", a.length, gp.get_data_length());
    num("streaming width", a.streaming_width, gp.get_streaming_width());
    if (gp.get_byte_enable_ptr() != a.byte_enable) changed.push_back("byte enable pointer");
    num("byte enable length", a.byte_enable_length, gp.get_byte_enable_length());
    if (!a.write_data.empty() && gp.get_data_ptr() == a.data &&
        std::memcmp(a.data, a.write_data.data(), a.write_data.size()) != 0)
      changed.push_back("write data array contents");
    if (!a.be_data.empty() && gp.get_byte_enable_ptr() == a.byte_enable &&
        std::memcmp(a.byte_enable, a.be_data.data(), a.be_data.size()) != 0)
      changed.push_back("byte enable array contents");
    return changed;
  }
};

}  // namespace flynn
