/* ipudrv C API: the C++ driver (ipudrv/device.h) behind opaque handles, for FFI users.
 * Every function returns IPUDRV_OK (0) or a negative IPUDRV_E_* code; the message of the
 * last failure on this thread is ipudrv_last_error(), and when the device reported it,
 * ipudrv_last_device_error() gives its error registers. docs/host_driver.md, "C API". */
#ifndef IPUDRV_IPUDRV_H
#define IPUDRV_IPUDRV_H

#include <stddef.h>
#include <stdint.h>

/* ipudrv_superstep, ipudrv_link, ipudrv_dma_stats, ipudrv_device_error (the device's
   problem record: ipudrv_last_device_error), ipudrv_run_result: generated from the host
   records (hw/host_if/records.yaml; fields: docs/host_records.md). */
#include "ipudrv/ipudrv_records.h"

#ifdef __cplusplus
extern "C" {
#endif

enum ipudrv_status {
  IPUDRV_OK = 0,
  IPUDRV_E_USAGE = -1,          /* bad argument or call order */
  IPUDRV_E_TRANSPORT = -2,      /* the link to the device failed */
  IPUDRV_E_PROTOCOL = -3,       /* the device or server answered something unexpected */
  IPUDRV_E_TIMEOUT = -4,
  IPUDRV_E_PROGRAM = -5,        /* an ELF that cannot be loaded */
  IPUDRV_E_TILE_FAULT = -6,
  IPUDRV_E_EXCHANGE = -7,
  IPUDRV_E_DEADLOCK = -8,
  IPUDRV_E_SMEM = -9,           /* streaming memory range / alignment / allocation */
  IPUDRV_E_STREAM = -10,
  IPUDRV_E_DMA = -11,
  IPUDRV_E_BOOT = -12,
  IPUDRV_E_STATE = -13,         /* the device refused a command in its state, or ABORT */
  IPUDRV_E_REGISTER = -14,
  IPUDRV_E_OTHER = -15,
  IPUDRV_E_BUDGET = -16,        /* a run's cycle / instruction budget was used up */
  IPUDRV_E_MODEL = -17,         /* a model stopped the run (ERR_MODEL: an RTL block's failed check) */
  IPUDRV_E_OUTPUT = -18         /* the run ended, but a waveform or its trace could not be written (ERR_OUTPUT) */
};

typedef struct ipudrv_device ipudrv_device;

/* A device is a whole system: `ipus` IPUs on `boards` boards; every `ipu` argument is a
   device IPU, 0 .. ipus - 1 (board ipu / ipus_per_board). Streaming memory and host
   streams are board 0's. */
typedef struct ipudrv_info {
  uint32_t version_major, version_minor, board_index;
  uint32_t ipus, tiles_per_ipu, workers, system_ipus;
  uint32_t sram_bytes, tile_clock_khz, host_link_mbps, stream_fifo_bytes;
  uint64_t smem_bytes;                 /* per board */
  uint32_t amp_f16_macs, amp_f32_macs; /* AMP multiply-accumulates per cycle per tile */
  uint32_t boards, ipus_per_board;
  uint32_t in_process; /* 1: the system runs in this process; 0: in an `ipusim serve` (unix:, or
                          the driver's own child for a config: beyond the process's first) */
} ipudrv_info;

typedef struct ipudrv_program {
  uint32_t ipu, tile_first, tile_count;
  const char* elf_path;
} ipudrv_program;

/* fill: write up to `capacity` bytes to `out`, return how many (0: no more). */
typedef size_t (*ipudrv_stream_fill)(void* user, void* out, size_t capacity);
/* drain: take `bytes` bytes the tiles wrote. */
typedef void (*ipudrv_stream_drain)(void* user, const void* data, size_t bytes);

/* One line a tile printed: ipudrv_console_line (ipudrv_records.h, from the host record
   ConsoleLine): `ipu` a device IPU, `thread` 0 for the supervisor; `text` (NUL-terminated,
   `length` bytes before the NUL, no newline) is valid during the call only. */
typedef void (*ipudrv_console_fn)(void* user, const ipudrv_console_line* line);

const char* ipudrv_last_error(void);
/* IPUDRV_OK and *out filled if the last failure was reported by the device, else IPUDRV_E_USAGE. */
int ipudrv_last_device_error(ipudrv_device_error* out);
const char* ipudrv_status_name(int status);

int ipudrv_count_devices(const char* locator, size_t* count);
/* ipudrv_count_devices gives 1 for a locator: the system is one device (index 0). */
int ipudrv_open(const char* locator, uint32_t device, ipudrv_device** out);
void ipudrv_close(ipudrv_device* dev);
int ipudrv_get_info(ipudrv_device* dev, ipudrv_info* out);
int ipudrv_reset(ipudrv_device* dev);

int ipudrv_load(ipudrv_device* dev, const char* elf_path); /* every tile */
int ipudrv_load_programs(ipudrv_device* dev, const ipudrv_program* programs, size_t count);

int ipudrv_write_tile(ipudrv_device* dev, uint32_t ipu, uint32_t tile, uint32_t addr, const void* data, size_t bytes);
int ipudrv_read_tile(ipudrv_device* dev, uint32_t ipu, uint32_t tile, uint32_t addr, void* out, size_t bytes);
/* As Device::write_symbol / read_symbol: more bytes than the symbol's size is IPUDRV_E_USAGE. */
int ipudrv_write_symbol(ipudrv_device* dev, uint32_t ipu, uint32_t tile, const char* symbol, const void* data, size_t bytes);
int ipudrv_read_symbol(ipudrv_device* dev, uint32_t ipu, uint32_t tile, const char* symbol, void* out, size_t bytes);

int ipudrv_smem_alloc(ipudrv_device* dev, uint64_t bytes, uint64_t align, uint64_t* offset);
int ipudrv_smem_free(ipudrv_device* dev, uint64_t offset, uint64_t bytes);
int ipudrv_smem_write(ipudrv_device* dev, uint64_t offset, const void* data, size_t bytes);
int ipudrv_smem_read(ipudrv_device* dev, uint64_t offset, void* out, size_t bytes);

int ipudrv_stream_h2d_buffer(ipudrv_device* dev, uint32_t id, const void* data, size_t bytes);
int ipudrv_stream_d2h_buffer(ipudrv_device* dev, uint32_t id, void* data, size_t capacity);
int ipudrv_stream_h2d_callback(ipudrv_device* dev, uint32_t id, ipudrv_stream_fill fill, void* user);
int ipudrv_stream_d2h_callback(ipudrv_device* dev, uint32_t id, ipudrv_stream_drain drain, void* user);
int ipudrv_stream_disconnect(ipudrv_device* dev, uint32_t id);

/* supersteps 0: until every tile halts; timeout_ms 0: no timeout. */
int ipudrv_run(ipudrv_device* dev, uint32_t supersteps, uint32_t timeout_ms, ipudrv_run_result* out);
/* ipudrv::RunOptions: budgets of the program's run (0: none) and a wall-clock timeout
   that aborts the run (0: none); IPUDRV_E_BUDGET / IPUDRV_E_TIMEOUT, the device then in
   ERROR. */
typedef struct ipudrv_run_options {
  uint32_t supersteps;        /* 0: until every tile halts */
  uint32_t timeout_ms;        /* 0: none */
  uint64_t max_cycles;        /* 0: none */
  uint64_t max_instructions;  /* 0: none */
} ipudrv_run_options;
int ipudrv_run_with(ipudrv_device* dev, const ipudrv_run_options* options, ipudrv_run_result* out);
/* Ends the run in any state (an endless loop, PAUSED, STREAM_WAIT); the device is then in
   ERROR until reset or load. */
int ipudrv_abort(ipudrv_device* dev);

/* Where the tiles' console lines go from the next run on (Device::set_console): fn(user,
   line) on the thread calling ipudrv_run, one line at a time in the order `ipusim run`
   prints them, every line of a run before ipudrv_run returns; fn NULL: off (the device
   drops them). At open: ipudrv_console_print to stdout (IPUSIM_CONSOLE=stderr: to stderr;
   none: off). */
int ipudrv_set_console(ipudrv_device* dev, ipudrv_console_fn fn, void* user);
/* Prints a line as `ipusim run` does ("[ipu 0 tile 3] text") to `user`, a FILE* (NULL:
   stdout): the default, to pass back to ipudrv_set_console. */
void ipudrv_console_print(void* user, const ipudrv_console_line* line);
/* Lines a run printed while no ipudrv_run waited for them (after a timeout), dropped, as
   of the last run's end (Device::console_lines_dropped). */
int ipudrv_console_dropped(ipudrv_device* dev, uint64_t* count);

/* The superstep trace (Perfetto JSON) of the runs started after this call; "" or NULL: none. */
int ipudrv_set_trace(ipudrv_device* dev, const char* path);
/* IPU `ipu`'s supersteps since the program started, as of the last run's end: *count of
   them in all; the first min(*count, capacity) copied to `out` (which may be NULL when
   capacity is 0). */
int ipudrv_supersteps(ipudrv_device* dev, uint32_t ipu, ipudrv_superstep* out, size_t capacity, size_t* count);

/* Faults on the IPU-Links of every program run started after this call: "[LINK:]SPEC"
   items separated by ';' (Device::set_link_faults; docs/links.md); "none": no faults. */
int ipudrv_set_link_faults(ipudrv_device* dev, const char* items);
/* The link directions that carried something, as of the last run's end: *count of them in
   all; the first min(*count, capacity) copied to `out` (NULL when capacity is 0). */
int ipudrv_link_stats(ipudrv_device* dev, ipudrv_link* out, size_t capacity, size_t* count);

int ipudrv_read_register(ipudrv_device* dev, uint32_t offset, uint32_t* value);

/* Tensors over tiles (ipudrv/tensor.h; docs/host_driver.md "Tensors"): a shape and a
   dtype spread over tiles by a mapping, at a symbol (resolved per tile) or a tile
   address, written or read in one call that becomes a few DMA descriptors. Data is the
   whole tensor, row-major. */
enum ipudrv_dtype {
  IPUDRV_U8, IPUDRV_I8, IPUDRV_U16, IPUDRV_I16, IPUDRV_U32, IPUDRV_I32, IPUDRV_U64, IPUDRV_I64,
  IPUDRV_F16, IPUDRV_BF16, IPUDRV_F32, IPUDRV_F64
};
enum ipudrv_mapping {
  IPUDRV_BLOCKED_ROWS,  /* dimension 0 in near-equal blocks over `tiles` (the first R % n one row more) */
  IPUDRV_BLOCKED_2D,    /* a 2-D tensor in grid_rows x grid_cols blocks; tile r * grid_cols + c holds block (r, c) */
  IPUDRV_REPLICATED,    /* the whole tensor on every tile (a broadcast; read from the first) */
  IPUDRV_PER_TILE       /* `pieces`: elements [offset, offset + count) of the flattened tensor per tile */
};
typedef struct ipudrv_tile {
  uint32_t ipu, tile; /* a device IPU and a tile of it */
} ipudrv_tile;
typedef struct ipudrv_tile_piece {
  uint32_t ipu, tile;
  uint64_t offset, count; /* elements of the flattened tensor */
} ipudrv_tile_piece;
typedef struct ipudrv_tensor {
  const uint64_t* shape;
  size_t rank;
  int dtype;                       /* ipudrv_dtype */
  int mapping;                     /* ipudrv_mapping */
  const ipudrv_tile* tiles;        /* BLOCKED_ROWS, BLOCKED_2D, REPLICATED */
  size_t tile_count;
  uint32_t grid_rows, grid_cols;   /* BLOCKED_2D */
  const ipudrv_tile_piece* pieces; /* PER_TILE */
  size_t piece_count;
  const char* symbol;              /* non-NULL: this symbol on each tile; NULL: `address` */
  uint32_t address;
} ipudrv_tensor;
/* `bytes` must be the tensor's size (elements x dtype size): else IPUDRV_E_USAGE. */
int ipudrv_write_tensor(ipudrv_device* dev, const ipudrv_tensor* tensor, const void* data, size_t bytes);
int ipudrv_read_tensor(ipudrv_device* dev, const ipudrv_tensor* tensor, void* out, size_t bytes);
/* Per-tile launch arguments: tile i of `tiles` gets bytes [i * bytes_per_tile, (i + 1) *
   bytes_per_tile) of `data` (count * bytes_per_tile bytes) at `symbol`, in one call. */
int ipudrv_write_per_tile(ipudrv_device* dev, const ipudrv_tile* tiles, size_t count, const char* symbol,
                          size_t bytes_per_tile, const void* data);
/* Bytes per element of an ipudrv_dtype (0: not a dtype). */
size_t ipudrv_dtype_size(int dtype);
/* What the DMA channels of every board posted since open (Device::dma_stats; the struct
   is ipudrv_records.h's). */
int ipudrv_get_dma_stats(ipudrv_device* dev, ipudrv_dma_stats* out);

#ifdef __cplusplus
}
#endif

#endif /* IPUDRV_IPUDRV_H */
