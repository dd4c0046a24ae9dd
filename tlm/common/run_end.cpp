#include "common/run_end.h"

#include <ipu/hostif_regs.h>

namespace ipusim {

const char* kind_name(RunEndKind kind) {
  switch (kind) {
    case RunEndKind::Fault: return "fault";
    case RunEndKind::ExchangeError: return "exchange error";
    case RunEndKind::Deadlock: return "deadlock";
    case RunEndKind::Halted: return "halted";
    case RunEndKind::Budget: return "budget";
    case RunEndKind::Interrupted: return "interrupted";
    case RunEndKind::Aborted: return "aborted";
    case RunEndKind::Paused: return "paused";
    case RunEndKind::StreamWait: return "stream wait";
  }
  return "?";
}

uint32_t ipu_state(RunEndKind kind) {
  switch (kind) {
    case RunEndKind::Halted: return IPU_STATE_HALTED;
    case RunEndKind::Paused: return IPU_STATE_PAUSED;
    case RunEndKind::StreamWait: return IPU_STATE_STREAM_WAIT;
    default: return IPU_STATE_ERROR;
  }
}

}  // namespace ipusim
