// The C API (include/ipudrv/ipudrv.h) over the C++ driver: every call catches, records
// the message (and the device's error registers) per thread and returns a status code.
#include "ipudrv/ipudrv.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <type_traits>
#include <fstream>

#include <ipu/hostif_regs.h>

#include "ipudrv/device.h"
#include "c_records.h"
#include "transport.h"

// ipudrv_device_error's arrays (c_chars, c_max in hw/host_if/records.yaml) are the register
// windows' sizes, spelled out in the records' source.
static_assert(sizeof(ipudrv_device_error::text) == IPU_ERR_TEXT_BYTES, "text: the ERR_TEXT window");
static_assert(sizeof(ipudrv_device_error::kind) == IPU_WIN_ERR_KIND_BYTES, "kind: the ERR_KIND window");
static_assert(std::extent_v<decltype(ipudrv_device_error::absent_ipu)> == IPU_ERR_ABSENT_MAX, "absent_ipu: ERR_ABSENT");
static_assert(std::extent_v<decltype(ipudrv_device_error::absent_tile)> == IPU_ERR_ABSENT_MAX, "absent_tile: ERR_ABSENT");

struct ipudrv_device {
  std::unique_ptr<ipudrv::Device> dev;
};

namespace {

thread_local std::string t_last_error;
thread_local std::optional<ipudrv::DeviceErrorInfo> t_last_device_error;

int status_of(const ipudrv::Error& e) {
  using namespace ipudrv;
  if (dynamic_cast<const UsageError*>(&e)) return IPUDRV_E_USAGE;
  if (dynamic_cast<const ProtocolError*>(&e)) return IPUDRV_E_PROTOCOL;
  if (dynamic_cast<const TransportError*>(&e)) return IPUDRV_E_TRANSPORT;
  if (dynamic_cast<const TimeoutError*>(&e)) return IPUDRV_E_TIMEOUT;
  if (dynamic_cast<const ProgramError*>(&e)) return IPUDRV_E_PROGRAM;
  if (dynamic_cast<const TileFaultError*>(&e)) return IPUDRV_E_TILE_FAULT;
  if (dynamic_cast<const ExchangeError*>(&e)) return IPUDRV_E_EXCHANGE;
  if (dynamic_cast<const DeadlockError*>(&e)) return IPUDRV_E_DEADLOCK;
  if (dynamic_cast<const StreamingMemoryError*>(&e)) return IPUDRV_E_SMEM;
  if (dynamic_cast<const StreamError*>(&e)) return IPUDRV_E_STREAM;
  if (dynamic_cast<const DmaError*>(&e)) return IPUDRV_E_DMA;
  if (dynamic_cast<const BootError*>(&e)) return IPUDRV_E_BOOT;
  if (dynamic_cast<const DeviceStateError*>(&e)) return IPUDRV_E_STATE;
  if (dynamic_cast<const BudgetError*>(&e)) return IPUDRV_E_BUDGET;
  if (dynamic_cast<const RegisterError*>(&e)) return IPUDRV_E_REGISTER;
  if (dynamic_cast<const ModelError*>(&e)) return IPUDRV_E_MODEL;
  if (dynamic_cast<const OutputError*>(&e)) return IPUDRV_E_OUTPUT;
  return IPUDRV_E_OTHER;
}

template <typename F>
int guarded(F&& f) {
  try {
    f();
    return IPUDRV_OK;
  } catch (const ipudrv::Error& e) {
    t_last_error = e.what();
    t_last_device_error = e.device_error();
    return status_of(e);
  } catch (const std::exception& e) {
    t_last_error = e.what();
    t_last_device_error.reset();
    return IPUDRV_E_OTHER;
  } catch (...) {
    t_last_error = "unknown exception";
    t_last_device_error.reset();
    return IPUDRV_E_OTHER;
  }
}

ipudrv::Device& checked(ipudrv_device* d) {
  if (!d || !d->dev) throw ipudrv::UsageError("null device handle");
  return *d->dev;
}

template <typename T>
T* need(T* p, const char* what) {
  if (!p) throw ipudrv::UsageError(std::string("null ") + what);
  return p;
}

std::span<const std::byte> in(const void* p, size_t n) {
  if (!p && n) throw ipudrv::UsageError("null data pointer with a non-zero size");
  return {static_cast<const std::byte*>(p), n};
}
std::span<std::byte> out(void* p, size_t n) {
  if (!p && n) throw ipudrv::UsageError("null buffer pointer with a non-zero size");
  return {static_cast<std::byte*>(p), n};
}

}  // namespace

extern "C" {

const char* ipudrv_last_error(void) { return t_last_error.c_str(); }

int ipudrv_last_device_error(ipudrv_device_error* o) {
  if (!o || !t_last_device_error) return IPUDRV_E_USAGE;
  *o = ipudrv::detail::to_c(*t_last_device_error);
  return IPUDRV_OK;
}

const char* ipudrv_status_name(int s) {
  switch (s) {
    case IPUDRV_OK: return "OK";
    case IPUDRV_E_USAGE: return "USAGE";
    case IPUDRV_E_TRANSPORT: return "TRANSPORT";
    case IPUDRV_E_PROTOCOL: return "PROTOCOL";
    case IPUDRV_E_TIMEOUT: return "TIMEOUT";
    case IPUDRV_E_PROGRAM: return "PROGRAM";
    case IPUDRV_E_TILE_FAULT: return "TILE_FAULT";
    case IPUDRV_E_EXCHANGE: return "EXCHANGE";
    case IPUDRV_E_DEADLOCK: return "DEADLOCK";
    case IPUDRV_E_SMEM: return "SMEM";
    case IPUDRV_E_STREAM: return "STREAM";
    case IPUDRV_E_DMA: return "DMA";
    case IPUDRV_E_BOOT: return "BOOT";
    case IPUDRV_E_STATE: return "STATE";
    case IPUDRV_E_REGISTER: return "REGISTER";
    case IPUDRV_E_OTHER: return "OTHER";
    case IPUDRV_E_BUDGET: return "BUDGET";
    case IPUDRV_E_MODEL: return "MODEL";
    case IPUDRV_E_OUTPUT: return "OUTPUT";
  }
  return "UNKNOWN";
}

int ipudrv_count_devices(const char* locator, size_t* count) {
  return guarded([&] { *need(count, "count") = ipudrv::enumerate(need(locator, "locator")).size(); });
}

int ipudrv_open(const char* locator, uint32_t device, ipudrv_device** o) {
  return guarded([&] {
    need(o, "output handle");
    *o = nullptr;
    auto d = std::make_unique<ipudrv_device>();
    d->dev = ipudrv::open(need(locator, "locator"), device);
    *o = d.release();
  });
}

void ipudrv_close(ipudrv_device* dev) {
  guarded([&] { delete dev; });
}

int ipudrv_get_info(ipudrv_device* dev, ipudrv_info* o) {
  return guarded([&] {
    const auto& i = checked(dev).info();
    *need(o, "info") = ipudrv_info{i.version_major, i.version_minor, i.board_index, i.ipus, i.tiles_per_ipu, i.workers,
                                   i.system_ipus, i.sram_bytes, i.tile_clock_khz, i.host_link_mbps,
                                   i.stream_fifo_bytes, i.smem_bytes, i.amp_f16_macs, i.amp_f32_macs,
                                   i.boards, i.ipus_per_board, i.in_process ? 1u : 0u};
  });
}

int ipudrv_reset(ipudrv_device* dev) {
  return guarded([&] { checked(dev).reset(); });
}

int ipudrv_load(ipudrv_device* dev, const char* path) {
  return guarded([&] { checked(dev).load(ipudrv::Elf::from_file(need(path, "ELF path"))); });
}

int ipudrv_load_programs(ipudrv_device* dev, const ipudrv_program* programs, size_t count) {
  return guarded([&] {
    auto& d = checked(dev);
    if (!programs && count) throw ipudrv::UsageError("null programs with a non-zero count");
    std::map<ipudrv::TileRange, ipudrv::Elf> map;
    for (size_t i = 0; i < count; ++i) {
      const auto& p = programs[i];
      ipudrv::TileRange r{p.ipu, p.tile_first, p.tile_count};
      if (!map.emplace(r, ipudrv::Elf::from_file(need(p.elf_path, "ELF path"))).second)
        throw ipudrv::UsageError("programs[" + std::to_string(i) + "]: the same tile range twice");
    }
    d.load(map);
  });
}

int ipudrv_write_tile(ipudrv_device* dev, uint32_t ipu, uint32_t tile, uint32_t addr, const void* data, size_t n) {
  return guarded([&] { checked(dev).write_tile(ipu, tile, addr, in(data, n)); });
}
int ipudrv_read_tile(ipudrv_device* dev, uint32_t ipu, uint32_t tile, uint32_t addr, void* o, size_t n) {
  return guarded([&] { checked(dev).read_tile(ipu, tile, addr, out(o, n)); });
}
int ipudrv_write_symbol(ipudrv_device* dev, uint32_t ipu, uint32_t tile, const char* sym, const void* data, size_t n) {
  return guarded([&] { checked(dev).write_symbol(ipu, tile, need(sym, "symbol"), in(data, n)); });
}
int ipudrv_read_symbol(ipudrv_device* dev, uint32_t ipu, uint32_t tile, const char* sym, void* o, size_t n) {
  return guarded([&] { checked(dev).read_symbol(ipu, tile, need(sym, "symbol"), out(o, n)); });
}

int ipudrv_smem_alloc(ipudrv_device* dev, uint64_t bytes, uint64_t align, uint64_t* offset) {
  return guarded([&] {
    need(offset, "offset");
    *offset = checked(dev).alloc_smem(bytes, align).offset;
  });
}
int ipudrv_smem_free(ipudrv_device* dev, uint64_t offset, uint64_t bytes) {
  return guarded([&] { checked(dev).free_smem({offset, bytes}); });
}
int ipudrv_smem_write(ipudrv_device* dev, uint64_t offset, const void* data, size_t n) {
  return guarded([&] { checked(dev).write_smem(offset, in(data, n)); });
}
int ipudrv_smem_read(ipudrv_device* dev, uint64_t offset, void* o, size_t n) {
  return guarded([&] { checked(dev).read_smem(offset, out(o, n)); });
}

int ipudrv_stream_h2d_buffer(ipudrv_device* dev, uint32_t id, const void* data, size_t n) {
  return guarded([&] { checked(dev).connect_h2d_stream(id, in(data, n)); });
}
int ipudrv_stream_d2h_buffer(ipudrv_device* dev, uint32_t id, void* data, size_t n) {
  return guarded([&] { checked(dev).connect_d2h_stream(id, out(data, n)); });
}
int ipudrv_stream_h2d_callback(ipudrv_device* dev, uint32_t id, ipudrv_stream_fill fill, void* user) {
  return guarded([&] {
    need(fill, "fill callback");
    checked(dev).connect_h2d_stream(id, [fill, user](std::span<std::byte> o) { return fill(user, o.data(), o.size()); });
  });
}
int ipudrv_stream_d2h_callback(ipudrv_device* dev, uint32_t id, ipudrv_stream_drain drain, void* user) {
  return guarded([&] {
    need(drain, "drain callback");
    checked(dev).connect_d2h_stream(id, [drain, user](std::span<const std::byte> d) { drain(user, d.data(), d.size()); });
  });
}
int ipudrv_stream_disconnect(ipudrv_device* dev, uint32_t id) {
  return guarded([&] { checked(dev).disconnect_stream(id); });
}

int ipudrv_run(ipudrv_device* dev, uint32_t supersteps, uint32_t timeout_ms, ipudrv_run_result* o) {
  return guarded([&] {
    const auto timeout = timeout_ms ? std::chrono::milliseconds(timeout_ms) : std::chrono::milliseconds::max();
    const ipudrv::RunResult r = checked(dev).run(supersteps, timeout);
    if (o) *o = ipudrv::detail::to_c(r);
  });
}

int ipudrv_run_with(ipudrv_device* dev, const ipudrv_run_options* options, ipudrv_run_result* o) {
  return guarded([&] {
    const ipudrv_run_options& c = *need(options, "options");
    ipudrv::RunOptions r;
    r.supersteps = c.supersteps;
    r.max_cycles = c.max_cycles;
    r.max_instructions = c.max_instructions;
    if (c.timeout_ms) r.timeout = std::chrono::milliseconds(c.timeout_ms);
    const ipudrv::RunResult result = checked(dev).run(r);
    if (o) *o = ipudrv::detail::to_c(result);
  });
}

int ipudrv_abort(ipudrv_device* dev) {
  return guarded([&] { checked(dev).abort(); });
}

int ipudrv_set_console(ipudrv_device* dev, ipudrv_console_fn fn, void* user) {
  return guarded([&] {
    if (!fn) return checked(dev).set_console({});
    checked(dev).set_console([fn, user](const ipudrv::ConsoleLine& l) {
      const ipudrv_console_line line = ipudrv::detail::to_c(l);
      fn(user, &line);
    });
  });
}

void ipudrv_console_print(void* user, const ipudrv_console_line* line) {
  if (!line) return;
  std::FILE* out = user ? static_cast<std::FILE*>(user) : stdout;
  const std::string s =
      ipudrv::format_console_line({line->ipu, line->tile, line->thread, std::string(line->text, line->length)});
  std::fwrite(s.data(), 1, s.size(), out);
  std::fflush(out);
}

int ipudrv_console_dropped(ipudrv_device* dev, uint64_t* count) {
  return guarded([&] { *need(count, "count") = checked(dev).console_lines_dropped(); });
}

int ipudrv_set_trace(ipudrv_device* dev, const char* path) {
  return guarded([&] { checked(dev).set_trace(path ? path : ""); });
}

int ipudrv_supersteps(ipudrv_device* dev, uint32_t ipu, ipudrv_superstep* out, size_t capacity, size_t* count) {
  return guarded([&] {
    need(count, "count");
    const std::vector<ipudrv::SuperstepStats> steps = checked(dev).superstep_stats(ipu);  // this IPU's only
    if (capacity > 0) need(out, "out");
    for (size_t i = 0; i < std::min(capacity, steps.size()); ++i)
      out[i] = ipudrv::detail::to_c(steps[i]);
    *count = steps.size();
  });
}

int ipudrv_set_link_faults(ipudrv_device* dev, const char* items) {
  return guarded([&] { checked(dev).set_link_faults(need(items, "items")); });
}

int ipudrv_link_stats(ipudrv_device* dev, ipudrv_link* out, size_t capacity, size_t* count) {
  return guarded([&] {
    need(count, "count");
    const std::vector<ipudrv::LinkStats> links = checked(dev).link_stats();
    if (capacity > 0) need(out, "out");
    for (size_t i = 0; i < std::min(capacity, links.size()); ++i)
      out[i] = ipudrv::detail::to_c(links[i]);
    *count = links.size();
  });
}

int ipudrv_read_register(ipudrv_device* dev, uint32_t offset, uint32_t* value) {
  return guarded([&] { *need(value, "value") = checked(dev).read_register(offset); });
}

}  // extern "C"

namespace {

static_assert(int(ipudrv::DType::kF64) == IPUDRV_F64 && int(ipudrv::DType::kF16) == IPUDRV_F16,
              "ipudrv_dtype follows ipudrv::DType");
static_assert(int(ipudrv::Mapping::Kind::kPerTile) == IPUDRV_PER_TILE, "ipudrv_mapping follows Mapping::Kind");

ipudrv::TileList tile_list(const ipudrv_tile* tiles, size_t count) {
  if (!tiles && count) throw ipudrv::UsageError("null tiles with a non-zero count");
  ipudrv::TileList l;
  for (size_t i = 0; i < count; ++i) l.push_back({tiles[i].ipu, tiles[i].tile});
  return l;
}

ipudrv::TensorLayout layout_of(const ipudrv_tensor* t) {
  need(t, "tensor");
  if (!t->shape && t->rank) throw ipudrv::UsageError("null shape with a non-zero rank");
  if (t->dtype < IPUDRV_U8 || t->dtype > IPUDRV_F64) throw ipudrv::UsageError("dtype " + std::to_string(t->dtype) + " is not an ipudrv_dtype");
  ipudrv::TensorLayout l;
  l.shape.assign(t->shape, t->shape + t->rank);
  l.dtype = ipudrv::DType(t->dtype);
  switch (t->mapping) {
    case IPUDRV_BLOCKED_ROWS: l.mapping = ipudrv::Mapping::blocked_rows(tile_list(t->tiles, t->tile_count)); break;
    case IPUDRV_BLOCKED_2D:
      l.mapping = ipudrv::Mapping::blocked_2d(tile_list(t->tiles, t->tile_count), t->grid_rows, t->grid_cols);
      break;
    case IPUDRV_REPLICATED: l.mapping = ipudrv::Mapping::replicated(tile_list(t->tiles, t->tile_count)); break;
    case IPUDRV_PER_TILE: {
      if (!t->pieces && t->piece_count) throw ipudrv::UsageError("null pieces with a non-zero count");
      std::vector<ipudrv::TilePiece> pieces;
      for (size_t i = 0; i < t->piece_count; ++i)
        pieces.push_back({t->pieces[i].ipu, t->pieces[i].tile, t->pieces[i].offset, t->pieces[i].count});
      l.mapping = ipudrv::Mapping::per_tile(std::move(pieces));
      break;
    }
    default: throw ipudrv::UsageError("mapping " + std::to_string(t->mapping) + " is not an ipudrv_mapping");
  }
  l.location = t->symbol ? ipudrv::Location::symbol(t->symbol) : ipudrv::Location::at(t->address);
  return l;
}

}  // namespace

extern "C" {

int ipudrv_write_tensor(ipudrv_device* dev, const ipudrv_tensor* tensor, const void* data, size_t bytes) {
  return guarded([&] { checked(dev).write_tensor(layout_of(tensor), in(data, bytes)); });
}
int ipudrv_read_tensor(ipudrv_device* dev, const ipudrv_tensor* tensor, void* o, size_t bytes) {
  return guarded([&] { checked(dev).read_tensor(layout_of(tensor), out(o, bytes)); });
}
int ipudrv_write_per_tile(ipudrv_device* dev, const ipudrv_tile* tiles, size_t count, const char* symbol,
                          size_t bytes_per_tile, const void* data) {
  return guarded([&] {
    auto& d = checked(dev);
    d.write_per_tile(tile_list(tiles, count), need(symbol, "symbol"), bytes_per_tile, in(data, count * bytes_per_tile));
  });
}
size_t ipudrv_dtype_size(int dtype) {
  return dtype < IPUDRV_U8 || dtype > IPUDRV_F64 ? 0 : ipudrv::dtype_size(ipudrv::DType(dtype));
}
int ipudrv_get_dma_stats(ipudrv_device* dev, ipudrv_dma_stats* o) {
  return guarded([&] {
    *need(o, "stats") = ipudrv::detail::to_c(checked(dev).dma_stats());
  });
}

}  // extern "C"
