#include "platform/checkpoint_codec.h"

namespace ipusim::platform::codec {
namespace {

using checkpoint::ByteReader;
using checkpoint::ByteWriter;

template <typename T>
void put_optional(ByteWriter& w, const std::optional<T>& v) {
  w.boolean(v.has_value());
  if (v) w.u64(uint64_t(*v));
}

template <typename T>
std::optional<T> get_optional(ByteReader& r, const char* field) {
  if (!r.boolean(field)) return std::nullopt;
  return T(r.u64(field));
}

void put_thread(ByteWriter& w, const iss::ThreadSnapshot& t) {
  w.u64(t.regs.size());
  for (const uint32_t v : t.regs) w.u32(v);
  w.u8(t.state);
  put_optional(w, t.pc);
  for (const uint64_t v : {t.clock, t.instret, t.stall, t.exchange_stall, t.alloc_cycle, t.start_cycle, t.exit_cycle})
    w.u64(v);
  w.u32(t.starts);
  w.i32(t.last_status);
  w.u32(t.wait_arg);
  w.str(t.line);
  w.boolean(t.amp);
  if (!t.amp) return;
  w.u8(t.amp_type);
  w.u32(t.amp_rows);
  w.u64(t.amp_w.size());
  w.raw(t.amp_w.data(), t.amp_w.size() * sizeof(float));
  w.u64(t.amp_acc.size());
  w.raw(t.amp_acc.data(), t.amp_acc.size() * sizeof(float));
  w.bytes(t.amp_w_raw);
}

std::vector<float> get_floats(ByteReader& r, const char* field) {
  std::vector<float> v(size_t(r.count(field, sizeof(float))));
  r.raw(v.data(), v.size() * sizeof(float), field);
  return v;
}

iss::ThreadSnapshot get_thread(ByteReader& r) {
  iss::ThreadSnapshot t;
  t.regs.resize(size_t(r.count("registers", 4)));
  for (uint32_t& v : t.regs) v = r.u32("register");
  t.state = r.u8("thread state");
  t.pc = get_optional<uint32_t>(r, "pc");
  for (uint64_t* v : {&t.clock, &t.instret, &t.stall, &t.exchange_stall, &t.alloc_cycle, &t.start_cycle, &t.exit_cycle})
    *v = r.u64("thread counter");
  t.starts = r.u32("starts");
  t.last_status = r.i32("last status");
  t.wait_arg = r.u32("wait argument");
  t.line = r.str("console line");
  t.amp = r.boolean("AMP in use");
  if (!t.amp) return t;
  t.amp_type = r.u8("AMP type");
  t.amp_rows = r.u32("AMP rows");
  t.amp_w = get_floats(r, "AMP weights");
  t.amp_acc = get_floats(r, "AMP accumulators");
  t.amp_w_raw = r.bytes("AMP raw weights");
  return t;
}

void put_record(ByteWriter& w, const tile::SuperstepRecord& s) {
  w.u32(s.index);
  for (const uint64_t v : {s.begin, s.sync_arrival, s.sync_release, s.exchange_start, s.end, s.compute_cycles,
                           s.sync_cycles, s.exchange_cycles, s.instructions, s.bytes_out, s.bytes_in})
    w.u64(v);
  w.u32(s.sync_zone);
  w.boolean(s.exchanged);
  w.boolean(s.complete);
}

tile::SuperstepRecord get_record(ByteReader& r) {
  tile::SuperstepRecord s;
  s.index = r.u32("superstep index");
  for (uint64_t* v : {&s.begin, &s.sync_arrival, &s.sync_release, &s.exchange_start, &s.end, &s.compute_cycles,
                      &s.sync_cycles, &s.exchange_cycles, &s.instructions, &s.bytes_out, &s.bytes_in})
    *v = r.u64("superstep figure");
  s.sync_zone = r.u32("superstep zone");
  s.exchanged = r.boolean("superstep exchanged");
  s.complete = r.boolean("superstep complete");
  return s;
}

// InjectedCounts and LinkCounters field by field: the order is the format.
void put_injected(ByteWriter& w, const links::InjectedCounts& c) {
  for (const uint64_t v : {c.wire_frames, c.frames_dropped, c.frames_duplicated, c.frames_corrupted,
                           c.corrupted_arrivals, c.ber_bits_flipped, c.ber_frames_hit, c.periodic_frames_hit,
                           c.burst_frames_hit, c.dllps_seen, c.dllps_dropped})
    w.u64(v);
}

links::InjectedCounts get_injected(ByteReader& r) {
  links::InjectedCounts c;
  for (uint64_t* v : {&c.wire_frames, &c.frames_dropped, &c.frames_duplicated, &c.frames_corrupted,
                      &c.corrupted_arrivals, &c.ber_bits_flipped, &c.ber_frames_hit, &c.periodic_frames_hit,
                      &c.burst_frames_hit, &c.dllps_seen, &c.dllps_dropped})
    *v = r.u64("injected count");
  return c;
}

void put_counters(ByteWriter& w, const links::LinkCounters& c) {
  for (const uint64_t v : {c.frames_sent, c.frames_replayed, c.replays, c.replay_timer_expiries, c.retrains,
                           c.retrain_cycles, c.acks_received, c.naks_received, c.frames_delivered, c.bytes_delivered,
                           c.crc_errors, c.seq_errors, c.duplicates_discarded, c.acks_sent, c.naks_sent, c.cycles_lost})
    w.u64(v);
  put_injected(w, c.injected);
}

links::LinkCounters get_counters(ByteReader& r) {
  links::LinkCounters c;
  for (uint64_t* v : {&c.frames_sent, &c.frames_replayed, &c.replays, &c.replay_timer_expiries, &c.retrains,
                      &c.retrain_cycles, &c.acks_received, &c.naks_received, &c.frames_delivered, &c.bytes_delivered,
                      &c.crc_errors, &c.seq_errors, &c.duplicates_discarded, &c.acks_sent, &c.naks_sent,
                      &c.cycles_lost})
    *v = r.u64("link counter");
  c.injected = get_injected(r);
  return c;
}

}  // namespace

void put(ByteWriter& w, const exchange::ExchangeGroup::Saved& s) {
  w.u64(s.phases);
  w.u64(s.links.free.size());
  for (size_t d = 0; d < s.links.free.size(); ++d) {
    const links::LinkLoad& l = s.links.load[d];
    for (const uint64_t v : {s.links.free[d], l.frames, l.bytes, l.busy_ticks}) w.u64(v);
  }
  w.boolean(s.faults.has_value());
  if (!s.faults) return;
  w.u64(s.faults->size());
  for (const links::LinkFaults::DirectionState& d : *s.faults) {
    put_injected(w, d.injector.counts);
    w.u64(d.injector.policies.size());
    for (const std::vector<uint64_t>& words : d.injector.policies) {
      w.u64(words.size());
      for (const uint64_t v : words) w.u64(v);
    }
    put_counters(w, d.stats);
  }
}

exchange::ExchangeGroup::Saved get_links(ByteReader& r) {
  exchange::ExchangeGroup::Saved s;
  s.phases = r.u64("exchange phases");
  const uint64_t directions = r.count("link directions", 32);
  for (uint64_t d = 0; d < directions; ++d) {
    s.links.free.push_back(r.u64("link free cycle"));
    links::LinkLoad l;
    for (uint64_t* v : {&l.frames, &l.bytes, &l.busy_ticks}) *v = r.u64("link load");
    s.links.load.push_back(l);
  }
  if (!r.boolean("link faults")) return s;
  s.faults.emplace();
  const uint64_t fault_directions = r.count("fault directions", 8);
  for (uint64_t d = 0; d < fault_directions; ++d) {
    links::LinkFaults::DirectionState state;
    state.injector.counts = get_injected(r);
    const uint64_t policies = r.count("fault policies", 8);
    for (uint64_t p = 0; p < policies; ++p) {
      std::vector<uint64_t> words(size_t(r.count("policy state words", 8)));
      for (uint64_t& v : words) v = r.u64("policy state word");
      state.injector.policies.push_back(std::move(words));
    }
    state.stats = get_counters(r);
    s.faults->push_back(std::move(state));
  }
  return s;
}

void put(ByteWriter& w, const tile::TileSnapshot& s) {
  const iss::CoreSnapshot& c = s.core;
  w.u64(c.threads.size());
  for (const iss::ThreadSnapshot& t : c.threads) put_thread(w, t);
  for (const uint32_t v : {c.wstack_base, c.wstack_size, c.wexit_pc, c.superstep}) w.u32(v);
  put_optional(w, c.stop_reason);
  w.i32(c.exit_code);
  w.u32(c.sync_zone);
  w.boolean(c.awaiting_release);
  w.boolean(c.exchange_open);
  w.boolean(c.awaiting_exchange);
  w.u64(c.xdst.size());
  for (const uint32_t v : c.xdst) w.u32(v);
  put_optional(w, c.xsrc);
  put_optional(w, c.smaddr);
  put_optional(w, c.stream);
  w.u64(c.horizon);
  w.u64(c.pending_posts);

  for (const uint64_t v : {s.resume_cycle, s.stop_cycle, s.prev_stop_cycle, s.last_stretch_cycles, s.instret}) w.u64(v);
  w.u32(s.sync_zone);
  w.u64(s.sync_arrival);
  w.u32(s.syncs);
  w.u64(s.sync_stall_cycles);
  w.u32(s.exchanges);
  for (const uint64_t v : {s.exchange_stall_cycles, s.exchange_bytes_out, s.exchange_bytes_in}) w.u64(v);
  w.u8(s.supersteps.phase);
  put_record(w, s.supersteps.cur);
  w.u32(s.supersteps.next_index);
  w.u64(s.supersteps.instret_begin);
  w.u64(s.supersteps.instret_arrival);
  w.boolean(s.halted);
  w.i32(s.exit_code);
}

tile::TileSnapshot get_tile(ByteReader& r) {
  tile::TileSnapshot s;
  iss::CoreSnapshot& c = s.core;
  const uint64_t threads = r.count("threads", 1);
  for (uint64_t i = 0; i < threads; ++i) c.threads.push_back(get_thread(r));
  for (uint32_t* v : {&c.wstack_base, &c.wstack_size, &c.wexit_pc, &c.superstep}) *v = r.u32("tile CSR");
  c.stop_reason = get_optional<uint8_t>(r, "stop reason");
  c.exit_code = r.i32("exit code");
  c.sync_zone = r.u32("sync zone");
  c.awaiting_release = r.boolean("awaiting release");
  c.exchange_open = r.boolean("exchange open");
  c.awaiting_exchange = r.boolean("awaiting exchange");
  c.xdst.resize(size_t(r.count("destinations", 4)));
  for (uint32_t& v : c.xdst) v = r.u32("destination");
  c.xsrc = get_optional<uint32_t>(r, "source");
  c.smaddr = get_optional<uint64_t>(r, "streaming address");
  c.stream = get_optional<uint32_t>(r, "stream");
  c.horizon = r.u64("horizon");
  c.pending_posts = r.u64("pending postings");

  for (uint64_t* v : {&s.resume_cycle, &s.stop_cycle, &s.prev_stop_cycle, &s.last_stretch_cycles, &s.instret})
    *v = r.u64("tile cycle");
  s.sync_zone = r.u32("tile sync zone");
  s.sync_arrival = r.u64("sync arrival");
  s.syncs = r.u32("syncs");
  s.sync_stall_cycles = r.u64("sync stall");
  s.exchanges = r.u32("exchanges");
  for (uint64_t* v : {&s.exchange_stall_cycles, &s.exchange_bytes_out, &s.exchange_bytes_in}) *v = r.u64("exchange figure");
  s.supersteps.phase = r.u8("superstep phase");
  s.supersteps.cur = get_record(r);
  s.supersteps.next_index = r.u32("next superstep");
  s.supersteps.instret_begin = r.u64("superstep instret");
  s.supersteps.instret_arrival = r.u64("superstep instret at arrival");
  s.halted = r.boolean("halted");
  s.exit_code = r.i32("tile exit code");
  return s;
}

void put(ByteWriter& w, const SuperstepRow& row) {
  w.u64(row.index);
  w.u64(row.ipus.size());
  for (const SuperstepTotals& t : row.ipus) {
    for (const uint32_t v : {t.tiles, t.exchanging_tiles, t.incomplete_tiles}) w.u32(v);
    for (const uint64_t v : {t.compute_cycles, t.sync_cycles, t.exchange_cycles, t.instructions, t.exchange_bytes,
                             t.begin_cycle, t.end_cycle})
      w.u64(v);
  }
  w.u64(row.tiles.size());
  for (const TileSuperstep& t : row.tiles) {
    w.u32(t.ipu);
    w.u32(t.tile);
    put_record(w, t.record);
  }
}

SuperstepRow get_row(ByteReader& r, uint32_t ipus) {
  SuperstepRow row;
  row.index = r.u64("row index");
  const uint64_t n = r.count("row IPUs", 12);
  if (n != ipus) r.fail("a superstep row of " + std::to_string(n) + " IPU(s) for a system of " + std::to_string(ipus));
  row.ipus.resize(size_t(n));
  for (SuperstepTotals& t : row.ipus) {
    for (uint32_t* v : {&t.tiles, &t.exchanging_tiles, &t.incomplete_tiles}) *v = r.u32("row tiles");
    for (uint64_t* v : {&t.compute_cycles, &t.sync_cycles, &t.exchange_cycles, &t.instructions, &t.exchange_bytes,
                        &t.begin_cycle, &t.end_cycle})
      *v = r.u64("row figure");
  }
  const uint64_t tiles = r.count("row tiles kept", 8);
  for (uint64_t i = 0; i < tiles; ++i) {
    TileSuperstep t;
    t.ipu = r.u32("row tile's IPU");
    t.tile = r.u32("row tile");
    t.record = get_record(r);
    row.tiles.push_back(t);
  }
  return row;
}

void put(ByteWriter& w, const streaming::Gateway::Saved& s) {
  w.u64(s.fifos.size());
  for (const streaming::Gateway::SavedFifo& f : s.fifos) {
    w.u32(f.stream);
    w.boolean(f.d2h);
    w.bytes(f.bytes);
    w.u64(f.next_ticket);
    w.u64(f.serving);
  }
  for (const uint64_t v : {s.gateway_free, s.smem_copies, s.smem_bytes_read, s.smem_bytes_written, s.stream_bytes_in,
                           s.stream_bytes_out, s.failed_checks})
    w.u64(v);
}

streaming::Gateway::Saved get_gateway(ByteReader& r) {
  streaming::Gateway::Saved s;
  const uint64_t fifos = r.count("stream FIFOs", 30);
  for (uint64_t i = 0; i < fifos; ++i) {
    streaming::Gateway::SavedFifo f;
    f.stream = r.u32("stream");
    f.d2h = r.boolean("stream direction");
    f.bytes = r.bytes("stream FIFO bytes");
    f.next_ticket = r.u64("stream tickets");
    f.serving = r.u64("stream ticket served");
    s.fifos.push_back(std::move(f));
  }
  for (uint64_t* v : {&s.gateway_free, &s.smem_copies, &s.smem_bytes_read, &s.smem_bytes_written, &s.stream_bytes_in,
                      &s.stream_bytes_out, &s.failed_checks})
    *v = r.u64("gateway figure");
  return s;
}

}  // namespace ipusim::platform::codec
