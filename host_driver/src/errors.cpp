// From the device's error registers to the matching exception class.
#include "ipudrv/errors.h"

#include <ipu/hostif_regs.h>

#include <cstdio>

namespace ipudrv {

// The register map's table (tools/regmap generates ipu_err_name from registers.yaml).
const char* device_error_name(uint32_t code) { return ipu_err_name(code); }

std::string describe(const DeviceErrorInfo& e) {
  std::string s = std::string(device_error_name(e.code)) + " (" + std::to_string(e.code) + ")";
  char buf[64];
  if (e.ipu != DeviceErrorInfo::kNone) s += " ipu " + std::to_string(e.ipu);
  if (e.tile != DeviceErrorInfo::kNone) s += " tile " + std::to_string(e.tile);
  if (e.thread != DeviceErrorInfo::kNone) s += " thread " + std::to_string(e.thread);
  if (e.pc != DeviceErrorInfo::kNone) {
    std::snprintf(buf, sizeof buf, " pc 0x%x", e.pc);
    s += buf;
    if (!e.function.empty()) s += " in " + e.function;
    if (!e.source.empty()) s += (e.function.empty() ? " at " : " (") + e.source + (e.function.empty() ? "" : ")");
  }
  if (e.addr != 0) {
    std::snprintf(buf, sizeof buf, " addr 0x%llx", static_cast<unsigned long long>(e.addr));
    s += buf;
  }
  if (e.cycle != 0) s += " cycle " + std::to_string(e.cycle);
  if (e.peer_pc != DeviceErrorInfo::kNone && (!e.peer_function.empty() || !e.peer_source.empty())) {
    std::snprintf(buf, sizeof buf, " (peer tile %u pc 0x%x", e.peer_tile, e.peer_pc);
    s += buf;
    if (!e.peer_function.empty()) s += " in " + e.peer_function;
    if (!e.peer_source.empty()) s += (e.peer_function.empty() ? " at " : " (") + e.peer_source + (e.peer_function.empty() ? "" : ")");
    s += ")";
  }
  if (!e.text.empty()) s += ": " + e.text;
  return s;
}

void throw_device_error(const std::string& context, const DeviceErrorInfo& info) {
  const std::string what = context + describe(info);
  switch (info.code) {
    case IPU_ERR_TILE_FAULT: throw TileFaultError(what, info);
    case IPU_ERR_EXCHANGE: throw ExchangeError(what, info);
    case IPU_ERR_DEADLOCK: throw DeadlockError(what, info);
    case IPU_ERR_SMEM_RANGE:
    case IPU_ERR_SMEM_ALIGN: throw StreamingMemoryError(what, info);
    case IPU_ERR_STREAM:
    case IPU_ERR_STREAM_OVERFLOW: throw StreamError(what, info);
    case IPU_ERR_DMA_HOST_ADDR:
    case IPU_ERR_DMA_DESC:
    case IPU_ERR_DMA_TILE: throw DmaError(what, info);
    case IPU_ERR_BOOT: throw BootError(what, info);
    case IPU_ERR_REG: throw RegisterError(what, info);
    case IPU_ERR_STATE: throw DeviceStateError(what, info);
    case IPU_ERR_BUDGET:
    case IPU_ERR_INTERRUPTED: throw BudgetError(what, info);
    case IPU_ERR_MODEL: throw ModelError(what, info);
    case IPU_ERR_OUTPUT: throw OutputError(what, info);
  }
  throw Error(what, info);
}

}  // namespace ipudrv
