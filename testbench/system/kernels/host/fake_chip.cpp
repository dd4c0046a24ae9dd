// The fake chip (fake_chip.h): the C functions of fake/ipu/xipu.h on host threads.
#include "fake_chip.h"

#include <barrier>
#include <cmath>
#include <cstdarg>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "ipu/xipu.h"

namespace kfake {
namespace {

struct Post {
  bool send = true;
  const uint8_t* send_addr = nullptr;
  uint8_t* recv_addr = nullptr;
  uint32_t len = 0;
  std::vector<uint32_t> peers;  // send: destinations; recv: the source
};

struct TileState {
  std::vector<Post> posts;
  std::vector<uint32_t> pending_dst;
  uint32_t xsrc = 0;
  bool have_xsrc = false;
  bool phase_open = false;
  uint32_t phase_zone = IPU_SYNC_GROUP;  // the zone of the sync that opened the phase
  uint32_t superstep = 0;
  uint64_t cycles = 0;
  TileOutcome outcome;
};

struct Chip {
  ChipConfig config;
  uint32_t all_tiles;
  std::vector<TileState> tiles;  // global order
  std::barrier<> barrier;        // every tile: zone 2
  std::vector<std::unique_ptr<std::barrier<>>> ipu_barriers;  // per IPU: zone 1
  std::mutex errors_mutex;
  std::vector<std::string> errors;

  explicit Chip(const ChipConfig& c)
      : config(c), all_tiles(c.tiles * c.ipus), tiles(all_tiles), barrier(all_tiles) {
    for (uint32_t i = 0; i < c.ipus; ++i) ipu_barriers.push_back(std::make_unique<std::barrier<>>(c.tiles));
  }
  uint32_t ipu_of(uint32_t tile) const { return tile / config.tiles; }
  void error(std::string message) {
    std::lock_guard lock(errors_mutex);
    errors.push_back(std::move(message));
  }
};

// Per host thread: the tile it runs, the thread context, the AMP state of the context.
struct AmpState {
  float w[64 * 4] = {};
  bool w_is_f16 = true;
  float acc[IPU_AMP_BANKS][IPU_AMP_MAX_ROWS] = {};
};
thread_local Chip* t_chip = nullptr;
thread_local uint32_t t_tile = 0;
thread_local uint32_t t_thread = 0;
thread_local uint32_t t_next_worker = 0;
thread_local AmpState t_amp;

TileState& me() { return t_chip->tiles[t_tile]; }

// The barrier of the zone that opened the current exchange phase.
std::barrier<>& phase_barrier() {
  return me().phase_zone == IPU_SYNC_IPU ? *t_chip->ipu_barriers[t_chip->ipu_of(t_tile)] : t_chip->barrier;
}

std::string where() { return fmt::format("tile {} thread {}", t_tile, t_thread); }

void require_supervisor(const char* what) {
  if (t_thread != 0) t_chip->error(fmt::format("{}: {} on a worker", where(), what));
}

void check_buffer(const char* what, const void* addr, uint32_t len) {
  if (reinterpret_cast<uintptr_t>(addr) % 4 != 0 || len % 4 != 0)
    t_chip->error(fmt::format("{}: {} of {} bytes at {} is not 4-byte aligned", where(), what,
                              len, addr));
  if (!me().phase_open)
    t_chip->error(fmt::format("{}: {} outside an exchange phase (send during compute)", where(),
                              what));
}

// Every tile's receives, matched against the senders' postings; runs between the two
// barriers of xwait, when every posting of the phase's tiles (the IPU's after a zone-1
// sync, all after zone 2) is final and no buffer changes.
void deliver_to_me() {
  const uint32_t self = t_tile;
  const bool zone1 = me().phase_zone == IPU_SYNC_IPU;
  const uint32_t first = zone1 ? t_chip->ipu_of(self) * t_chip->config.tiles : 0;
  const uint32_t last = zone1 ? first + t_chip->config.tiles : t_chip->all_tiles;
  for (const Post& p : me().posts)
    for (uint32_t peer : p.peers)
      if (zone1 && t_chip->ipu_of(peer) != t_chip->ipu_of(self))
        t_chip->error(fmt::format("tile {} {} tile {} of another IPU after a zone-1 sync", self,
                                  p.send ? "sends to" : "receives from", peer));
  std::vector<uint32_t> recv_count(t_chip->all_tiles, 0);
  std::vector<std::vector<const Post*>> sends_from(t_chip->all_tiles);
  for (uint32_t src = first; src < last; ++src)
    for (const Post& p : t_chip->tiles[src].posts)
      if (p.send)
        for (uint32_t d : p.peers)
          if (d == self) sends_from[src].push_back(&p);
  struct Copy {
    uint8_t* to;
    const uint8_t* from;
    uint32_t len;
  };
  std::vector<Copy> copies;
  bool ok = true;
  for (const Post& r : me().posts) {
    if (r.send) continue;
    const uint32_t src = r.peers[0];
    const uint32_t k = recv_count[src]++;
    if (k >= sends_from[src].size()) {
      t_chip->error(fmt::format("tile {} receives {} bytes from tile {} but tile {} posts no "
                                "matching send",
                                self, r.len, src, src));
      ok = false;
      continue;
    }
    const Post& s = *sends_from[src][k];
    if (s.len != r.len) {
      t_chip->error(fmt::format("tile {} sends {} bytes to tile {} but it receives {}", src, s.len,
                                self, r.len));
      ok = false;
      continue;
    }
    copies.push_back({r.recv_addr, s.send_addr, r.len});
  }
  for (uint32_t src = first; src < last; ++src)
    if (sends_from[src].size() > recv_count[src]) {
      t_chip->error(fmt::format("tile {} sends {} message(s) to tile {} which receives only {}",
                                src, sends_from[src].size(), self, recv_count[src]));
      ok = false;
    }
  if (ok)
    for (const Copy& c : copies) std::memcpy(c.to, c.from, c.len);
}

}  // namespace

float f16_to_f32(uint16_t bits) {
  const bool negative = bits & 0x8000u;
  const int exp = (bits >> 10) & 0x1f;
  const int mant = bits & 0x3ff;
  float v;
  if (exp == 0)
    v = std::ldexp(float(mant), -24);
  else if (exp == 31)
    v = mant ? std::nanf("") : INFINITY;
  else
    v = std::ldexp(float(mant | 0x400), exp - 25);
  return negative ? -v : v;
}

RunOutcome run(const ChipConfig& config, KernelMain kernel) {
  auto chip = std::make_unique<Chip>(config);
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < chip->all_tiles; ++t)
    threads.emplace_back([&chip, kernel, t] {
      t_chip = chip.get();
      t_tile = t;
      t_thread = 0;
      t_amp = AmpState{};
      const int code = kernel();
      TileState& s = chip->tiles[t];
      s.outcome.exit_code = code;
      if (!s.posts.empty())
        chip->error(fmt::format("tile {} ends with {} posting(s) pending", t, s.posts.size()));
      // Tiles still waiting at a barrier go on without this one (a deadlock on the chip;
      // here the uneven sync counts below report it).
      chip->barrier.arrive_and_drop();
      chip->ipu_barriers[chip->ipu_of(t)]->arrive_and_drop();
    });
  for (auto& th : threads) th.join();
  RunOutcome out;
  for (auto& s : chip->tiles) out.tiles.push_back(s.outcome);
  out.errors = chip->errors;
  // Tiles of one IPU sync alike (IPUs may differ: zone-1 supersteps of one IPU alone).
  for (uint32_t t = 0; t < chip->all_tiles; ++t) {
    const uint32_t t0 = t - t % config.tiles;
    if (out.tiles[t].syncs != out.tiles[t0].syncs || out.tiles[t].xwaits != out.tiles[t0].xwaits)
      out.errors.push_back(fmt::format("tile {} did {} syncs / {} xwaits, tile {} {} / {}", t,
                                       out.tiles[t].syncs, out.tiles[t].xwaits, t0,
                                       out.tiles[t0].syncs, out.tiles[t0].xwaits));
  }
  return out;
}

}  // namespace kfake

using kfake::me;
using kfake::t_amp;
using kfake::t_chip;
using kfake::t_thread;
using kfake::t_tile;

extern "C" {

uint32_t ipu_tile_id(void) { return t_tile % t_chip->config.tiles; }
uint32_t ipu_id(void) { return t_chip->ipu_of(t_tile); }
uint32_t ipu_thread_id(void) { return t_thread; }
uint32_t ipu_num_tiles(void) { return t_chip->config.tiles; }
uint32_t ipu_num_ipus(void) { return t_chip->config.ipus; }
uint32_t ipu_num_workers(void) { return t_chip->config.workers; }
uint32_t ipu_sram_base(void) { return IPU_SRAM_BASE; }
uint32_t ipu_sram_size(void) { return t_chip->config.sram_bytes; }
uint32_t ipu_superstep(void) { return me().superstep; }
uint64_t ipu_cycles(void) { return me().cycles += 7; }

uint32_t ipu_run(ipu_worker_fn fn, void* arg) {
  const uint32_t id = 1 + kfake::t_next_worker++ % t_chip->config.workers;
  const uint32_t caller = t_thread;
  t_thread = id;
  fn(arg);
  t_thread = caller;
  return id;
}

void ipu_join(void) { kfake::require_supervisor("join"); }

void ipu_sync(uint32_t zone) {
  kfake::require_supervisor("sync");
  auto& s = me();
  if (zone == IPU_SYNC_WORKERS) {
    ++s.superstep;
    return;
  }
  if (!s.posts.empty())
    t_chip->error(fmt::format("tile {}: sync with {} posting(s) pending (the kernels always "
                              "xwait first)",
                              t_tile, s.posts.size()));
  s.phase_zone = zone == IPU_SYNC_IPU ? IPU_SYNC_IPU : IPU_SYNC_GROUP;
  kfake::phase_barrier().arrive_and_wait();
  ++s.superstep;
  ++s.outcome.syncs;
  s.phase_open = true;
}

uint32_t ipu_global_tile_id(void) { return t_tile; }

void ipu_xdst(uint32_t first, uint32_t count) {
  kfake::require_supervisor("xdst");
  if (uint64_t(first) + count > t_chip->all_tiles)
    t_chip->error(fmt::format("{}: xdst {} + {} is not a tile range", kfake::where(), first, count));
  for (uint32_t i = 0; i < count && first + i < t_chip->all_tiles; ++i)
    me().pending_dst.push_back(first + i);
}

void ipu_send(const void* addr, uint32_t len) {
  kfake::require_supervisor("send");
  kfake::check_buffer("send", addr, len);
  auto& s = me();
  if (s.pending_dst.empty()) t_chip->error(fmt::format("{}: send with no destination", kfake::where()));
  kfake::Post p;
  p.send = true;
  p.send_addr = static_cast<const uint8_t*>(addr);
  p.len = len;
  p.peers = std::move(s.pending_dst);
  s.pending_dst.clear();
  s.posts.push_back(std::move(p));
}

void ipu_xsrc(uint32_t tile) {
  kfake::require_supervisor("xsrc");
  if (tile >= t_chip->all_tiles)
    t_chip->error(fmt::format("{}: xsrc {} is not a tile", kfake::where(), tile));
  me().xsrc = tile;
  me().have_xsrc = true;
}

void ipu_recv(void* addr, uint32_t len) {
  kfake::require_supervisor("recv");
  kfake::check_buffer("recv", addr, len);
  auto& s = me();
  if (!s.have_xsrc) t_chip->error(fmt::format("{}: recv with no xsrc", kfake::where()));
  kfake::Post p;
  p.send = false;
  p.recv_addr = static_cast<uint8_t*>(addr);
  p.len = len;
  p.peers = {s.xsrc};
  s.posts.push_back(std::move(p));
}

void ipu_xwait(void) {
  kfake::require_supervisor("xwait");
  kfake::phase_barrier().arrive_and_wait();  // every posting is in
  kfake::deliver_to_me();
  kfake::phase_barrier().arrive_and_wait();  // every copy is done before buffers change again
  auto& s = me();
  s.posts.clear();
  s.phase_open = false;
  ++s.outcome.xwaits;
}

uint32_t ipu_amp_rows16(void) { return t_chip->config.amp_rows16; }
uint32_t ipu_amp_rows32(void) { return t_chip->config.amp_rows32; }

void ipu_amp_ldw_f16(const void* w) {
  const auto* h = static_cast<const uint16_t*>(w);
  for (uint32_t i = 0; i < t_chip->config.amp_rows16 * 4; ++i) t_amp.w[i] = kfake::f16_to_f32(h[i]);
  t_amp.w_is_f16 = true;
}

void ipu_amp_ldw_f32(const void* w) {
  std::memcpy(t_amp.w, w, t_chip->config.amp_rows32 * 4 * sizeof(float));
  t_amp.w_is_f16 = false;
}

// acc = (((acc + p0) + p1) + p2) + p3, every product and sum rounded to f32 (f16 x f16
// products are exact). The host evaluates float expressions in single precision (SSE).
// The inputs are a struct by value: with a local float[4] array instead, GCC 12.2 -O2
// dropped the whole call (gone with -fno-tree-loop-vectorize; the host test caught it).
struct MacInputs {
  float x0, x1, x2, x3;
};
static void amp_mac(MacInputs in, uint32_t rows, uint32_t bank) {
  if (bank >= IPU_AMP_BANKS) t_chip->error(fmt::format("{}: amp.mac into bank {} ({} banks)", kfake::where(), bank, IPU_AMP_BANKS));
  for (uint32_t i = 0; i < rows; ++i) {
    const float* w = &t_amp.w[i * 4];
    float acc = t_amp.acc[bank][i];
    acc = acc + w[0] * in.x0;
    acc = acc + w[1] * in.x1;
    acc = acc + w[2] * in.x2;
    acc = acc + w[3] * in.x3;
    t_amp.acc[bank][i] = acc;
  }
}

const void* kfake_amp_mac_f16_bank(const void* x, uint32_t bank) {
  if (!t_amp.w_is_f16) t_chip->error(fmt::format("{}: amp.mac f16 with f32 weights", kfake::where()));
  if (reinterpret_cast<uintptr_t>(x) % 8 != 0)
    t_chip->error(fmt::format("{}: amp.mac f16 input {} not 8-aligned", kfake::where(), x));
  const auto* h = static_cast<const uint16_t*>(x);
  amp_mac({kfake::f16_to_f32(h[0]), kfake::f16_to_f32(h[1]), kfake::f16_to_f32(h[2]),
           kfake::f16_to_f32(h[3])},
          t_chip->config.amp_rows16, bank);
  return static_cast<const uint8_t*>(x) + 8;
}
const void* ipu_amp_mac_f16(const void* x) { return kfake_amp_mac_f16_bank(x, 0); }

const float* kfake_amp_mac_f32_bank(const float* x, uint32_t bank) {
  if (t_amp.w_is_f16) t_chip->error(fmt::format("{}: amp.mac f32 with f16 weights", kfake::where()));
  MacInputs in;
  std::memcpy(&in, x, sizeof in);
  amp_mac(in, t_chip->config.amp_rows32, bank);
  return x + 4;
}
const void* ipu_amp_mac_f32(const void* x) { return kfake_amp_mac_f32_bank(static_cast<const float*>(x), 0); }

void kfake_amp_st_bank(float* out, uint32_t bank) {
  if (bank >= IPU_AMP_BANKS) t_chip->error(fmt::format("{}: amp.st from bank {} ({} banks)", kfake::where(), bank, IPU_AMP_BANKS));
  const uint32_t rows = t_amp.w_is_f16 ? t_chip->config.amp_rows16 : t_chip->config.amp_rows32;
  std::memcpy(out, t_amp.acc[bank], rows * sizeof(float));
}
void ipu_amp_st(float* out) { kfake_amp_st_bank(out, 0); }

void ipu_amp_clr(void) { std::memset(t_amp.acc, 0, sizeof t_amp.acc); }
uint32_t ipu_amp_banks(void) { return IPU_AMP_BANKS; }

int kfake_printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  char small[512];
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(small, sizeof small, format, copy);
  va_end(copy);
  std::string text;
  if (n >= 0 && size_t(n) < sizeof small) {
    text.assign(small, size_t(n));
  } else if (n >= 0) {
    text.resize(size_t(n) + 1);
    std::vsnprintf(text.data(), text.size(), format, args);
    text.resize(size_t(n));
  }
  va_end(args);
  me().outcome.console += text;
  return n;
}

}  // extern "C"
