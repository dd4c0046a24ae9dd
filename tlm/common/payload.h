// A plain struct as a TLM-2.0 generic payload: the tiles and their peers (sync controller,
// exchange fabric) exchange messages as structs in the payload's data pointer
// (sync/sync_payload.h, exchange/exchange_payload.h). These two helpers are that
// convention's only implementation.
#pragma once

#include <tlm>

namespace ipusim {

// Points `trans` at `message`: write command, address 0, data length and streaming width
// = sizeof(T), no byte enables, response incomplete.
template <typename T>
void attach_message(tlm::tlm_generic_payload& trans, T& message) {
  trans.set_command(tlm::TLM_WRITE_COMMAND);
  trans.set_address(0);
  trans.set_data_ptr(reinterpret_cast<unsigned char*>(&message));
  trans.set_data_length(sizeof(T));
  trans.set_streaming_width(sizeof(T));
  trans.set_byte_enable_ptr(nullptr);
  trans.set_byte_enable_length(0);
  trans.set_dmi_allowed(false);
  trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// The message `trans` carries, or nullptr if it is not a well-formed T message.
template <typename T>
T* message_of(tlm::tlm_generic_payload& trans) {
  if (trans.get_command() != tlm::TLM_WRITE_COMMAND || trans.get_data_ptr() == nullptr ||
      trans.get_data_length() != sizeof(T) || trans.get_byte_enable_ptr() != nullptr)
    return nullptr;
  return reinterpret_cast<T*>(trans.get_data_ptr());
}

}  // namespace ipusim
