// ipudrv's error model: every failure is an exception derived from ipudrv::Error. Errors
// the device reported carry its error registers (the device's problem record: ERR_CODE,
// ERR_KIND, ERR_IPU / TILE / THREAD / PC, ERR_ADDR, ERR_CYCLE, ERR_SUPERSTEP, ERR_PEER_*,
// ERR_WAITING, ERR_ABSENT_*, ERR_TEXT; hw/host_if/registers.yaml) so a caller can name
// the tile, thread and pc without reading registers itself, or parsing the text.
// docs/host_driver.md, "Errors".
#pragma once

#include <ipu/host_records.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace ipudrv {

// The device's problem record (its error registers at the time of the error, pcs
// located): the host record DeviceErrorInfo of hw/host_if/records.yaml (fields:
// docs/host_records.md). Fields the device did not name hold DeviceErrorInfo::kNone.
using DeviceErrorInfo = ipusim::records::DeviceErrorInfo;

const char* device_error_name(uint32_t code);  // "TILE_FAULT", ... or "UNKNOWN"

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, std::optional<DeviceErrorInfo> device = std::nullopt)
      : std::runtime_error(what), device_(std::move(device)) {}
  // The device's error registers when the device reported this error.
  const std::optional<DeviceErrorInfo>& device_error() const { return device_; }

 private:
  std::optional<DeviceErrorInfo> device_;
};

// Device-reported run errors.
class TileFaultError : public Error { public: using Error::Error; };
class ExchangeError : public Error { public: using Error::Error; };
class DeadlockError : public Error { public: using Error::Error; };
class StreamingMemoryError : public Error { public: using Error::Error; };  // range, alignment
class StreamError : public Error { public: using Error::Error; };  // device or host side of a stream
class DmaError : public Error { public: using Error::Error; };     // a descriptor failed
class BootError : public Error { public: using Error::Error; };
class DeviceStateError : public Error { public: using Error::Error; };  // a command the state refused, ABORT
class BudgetError : public Error { public: using Error::Error; };  // RunOptions' cycle / instruction budget used up
class RegisterError : public Error { public: using Error::Error; };     // a bad register access
class ModelError : public Error { public: using Error::Error; };  // a model stopped the run (ERR_MODEL): an RTL block's failed check
class OutputError : public Error { public: using Error::Error; };  // the run ended, but a waveform or its trace could not be written (ERR_OUTPUT)
// Host side.
class TimeoutError : public Error { public: using Error::Error; };
class InterruptedError : public Error { public: using Error::Error; };  // RunOptions::stop_requested said stop
class TransportError : public Error { public: using Error::Error; };    // the link to the device failed
class ProtocolError : public TransportError { public: using TransportError::TransportError; };
class UsageError : public Error { public: using Error::Error; };        // bad arguments or call order
class ProgramError : public Error { public: using Error::Error; };      // an ELF that cannot be loaded

// Throws the exception class that matches info.code, with `context` leading the message
// ("run: " ...), the registers appended.
[[noreturn]] void throw_device_error(const std::string& context, const DeviceErrorInfo& info);
// "TILE_FAULT (1) ipu 0 tile 3 thread 1 pc 0x40010 in vec_add (vecadd/vecadd.c:42): text"
std::string describe(const DeviceErrorInfo& info);

}  // namespace ipudrv
