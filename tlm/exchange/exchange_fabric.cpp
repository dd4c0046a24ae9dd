#include "exchange/exchange_fabric.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "common/payload.h"
#include "exchange/exchange_delivery.h"
#include "iss/tile_core.h"

namespace ipusim::exchange {

ExchangeFabricConfig ExchangeFabricConfig::from(const config::ChipConfig& chip, uint32_t ipu, uint32_t ipus) {
  ExchangeFabricConfig c;
  c.ipu = ipu;
  c.ipus = ipus;
  c.tiles = chip.tiles;
  c.timing.tiles_per_ipu = chip.tiles;
  c.timing.in_bytes_per_cycle = chip.tile.exchange_in_bytes_per_cycle;
  c.timing.out_bytes_per_cycle = chip.tile.exchange_out_bytes_per_cycle;
  c.timing.latency_min_cycles = chip.exchange.latency_min_cycles;
  c.timing.latency_max_cycles = chip.exchange.latency_max_cycles;
  c.clock_hz = chip.clock_hz;
  return c;
}

ExchangeFabric::ExchangeFabric(sc_core::sc_module_name name, const ExchangeFabricConfig& config)
    : sc_module(name),
      tile_socket("tile_socket"),
      memory_socket("memory_socket"),
      gateway_socket("gateway_socket"),
      config_(config),
      clock_(config.clock_hz),
      participant_(config.tiles, 0),
      in_phase_(config.tiles, 0),
      grants_(config.tiles) {
  tile_socket.register_nb_transport_fw(this, &ExchangeFabric::nb_transport_fw);
  memory_socket.register_invalidate_direct_mem_ptr(this, &ExchangeFabric::invalidate_direct_mem_ptr);
  SC_HAS_PROCESS(ExchangeFabric);
  SC_THREAD(exchange_thread);
}

void ExchangeFabric::set_participant(uint32_t tile) {
  if (tile >= config_.tiles) throw std::out_of_range(fmt::format("exchange fabric: no tile {}", tile));
  if (!participant_[tile]) ++participant_count_;
  participant_[tile] = 1;
}

tlm::tlm_sync_enum ExchangeFabric::refuse(tlm::tlm_generic_payload& trans, tlm::tlm_response_status status) {
  trans.set_response_status(status);
  return tlm::TLM_COMPLETED;
}

tlm::tlm_sync_enum ExchangeFabric::nb_transport_fw(int id, tlm::tlm_generic_payload& trans,
                                                   tlm::tlm_phase& phase, sc_core::sc_time&) {
  if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;  // END_RESP: nothing to do
  ExchangeMessage* msg = message_of<ExchangeMessage>(trans);
  if (!msg || msg->tile != uint32_t(id) || uint32_t(id) >= config_.tiles)
    return refuse(trans, tlm::TLM_COMMAND_ERROR_RESPONSE);
  if (!participant_[id] || in_phase_[id]) return refuse(trans, tlm::TLM_GENERIC_ERROR_RESPONSE);
  const bool post = msg->kind == ExchangeMessage::Kind::Post;
  if (!post && msg->kind != ExchangeMessage::Kind::Close) return refuse(trans, tlm::TLM_COMMAND_ERROR_RESPONSE);
  if (post && !msg->log && !msg->posts) return refuse(trans, tlm::TLM_COMMAND_ERROR_RESPONSE);
  in_phase_[id] = 1;
  entries_.push_back(Entry{uint32_t(id), msg->cycle, post ? &trans : nullptr, post ? msg : nullptr});
  zone_ = msg->zone;
  if (entries_.size() == participant_count_) {
    complete_.push_back(Phase{std::move(entries_), zone_});
    entries_.clear();
    std::fill(in_phase_.begin(), in_phase_.end(), 0);
    complete_event_.notify(sc_core::SC_ZERO_TIME);
  }
  if (!post) {
    trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return tlm::TLM_COMPLETED;
  }
  phase = tlm::END_REQ;
  return tlm::TLM_UPDATED;
}

void ExchangeFabric::reset() {
  ++generation_;
  complete_event_.cancel();
  std::fill(participant_.begin(), participant_.end(), 0);
  std::fill(in_phase_.begin(), in_phase_.end(), 0);
  participant_count_ = 0;
  entries_.clear();
  complete_.clear();
  errors_.clear();
  exchanges_ = failed_ = messages_ = bytes_ = 0;
  host_ticks_ = {};
  std::fill(grants_.begin(), grants_.end(), TileGrants{});
}

void ExchangeFabric::join_group() {
  if (group_ && participant_count_ > 0) group_->join(*this);
}

void ExchangeFabric::exchange_thread() {
  for (;;) {
    while (complete_.empty()) wait(complete_event_);
    Phase phase = std::move(complete_.front());
    complete_.pop_front();
    std::vector<Entry>& entries = phase.entries;
    const auto by_tile = [](const Entry& a, const Entry& b) { return a.tile < b.tile; };
    if (!std::is_sorted(entries.begin(), entries.end(), by_tile)) std::sort(entries.begin(), entries.end(), by_tile);
    const bool joint = phase.zone == 2 && group_ && group_->members() > 1;
    if (!joint && std::none_of(entries.begin(), entries.end(), [](const Entry& e) { return e.trans != nullptr; }))
      continue;  // nobody posted: an empty phase (a joint one still takes part: others may send here)

    // A reset while a copy waits on a host stream (the gateway gives up then), or while
    // the group waits for other IPUs: the phase belongs to tiles that no longer exist.
    const uint64_t phase_generation = generation_;
    std::vector<TileOutcome> outcomes;
    if (!plan_phase(phase, outcomes) || phase_generation != generation_) {
      errors_.clear();
      continue;
    }
    if (errors_.empty() && !copies_of_phase_.empty()) run_copies(outcomes, entries);
    if (phase_generation != generation_) {
      errors_.clear();
      continue;
    }
    const bool posted = std::any_of(entries.begin(), entries.end(), [](const Entry& e) { return e.trans != nullptr; });
    if (!posted) {
      errors_.clear();
      continue;  // a joint phase this IPU only closed: its tiles wait for nothing
    }
    ++exchanges_;
    if (!errors_.empty()) {
      ++failed_;
      answer(entries, nullptr, set_failure_cycle(entries));
      continue;
    }
    // Every poster learns its done cycle at once; SystemC time goes to the earliest.
    uint64_t earliest = UINT64_MAX;
    for (size_t i = 0; i < entries.size(); ++i)
      if (entries[i].trans) earliest = std::min(earliest, outcomes[i].done_cycle);
    const sc_core::sc_time at = clock_.time_of(earliest);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const uint64_t generation = generation_;
    if (at > now) wait(at - now);
    if (generation != generation_) continue;  // reset meanwhile
    answer(entries, &outcomes, 0);
  }
}

bool ExchangeFabric::plan_phase(const Phase& phase, std::vector<TileOutcome>& outcomes) {
  const std::vector<Entry>& entries = phase.entries;
  std::vector<TilePostings>& tiles = postings_;
  tiles.clear();
  const uint32_t base = config_.ipu * config_.tiles;
  for (const Entry& e : entries)
    tiles.push_back(e.msg ? TilePostings{base + e.tile, e.cycle, e.msg->posts, e.msg->log}
                          : TilePostings{base + e.tile, e.cycle, nullptr, nullptr});
  errors_.clear();
  collect_copies(entries);

  if (phase.zone == 2 && group_ && group_->members() > 1) {
    if (!copies_of_phase_.empty()) check_copies();  // adds to errors_
    ExchangeGroup::Part part;
    part.postings = &tiles;
    part.problems = &errors_;
    if (!group_->exchange(*this, part)) return false;
    errors_ = std::move(part.errors);
    outcomes = std::move(part.outcomes);
    return true;
  }
  ExchangePlan plan;
  bool delivered = false;
  if (group_ && config_.ipus > 1) {
    // With the other IPUs' plans of this moment (plan_batch.h); the batch counts the host
    // time. A phase without copies has no problem but the plan's (errors_ is empty), so a
    // valid plan is delivered as below, by the batch, which then keeps the deliveries'
    // storage for the next plans; with copies, only after they are checked, here.
    // A reset between the hand-in and the batch's delivery (generation_ moved on) drops
    // the plan undelivered, as the fabric does below when it goes on.
    const uint64_t generation = generation_;
    const PlanBatch::Deliver deliver_now = [&](const ExchangePlan& p) {
      if (generation != generation_) return;
      deliver(p);
      delivered = true;
    };
    plan = group_->batch().plan(tiles, config_.timing, copies_of_phase_.empty() ? &deliver_now : nullptr);
    if (generation != generation_) return false;
  } else {
    HostTicksScope timed(host_ticks_.plan);
    plan = plan_exchange(tiles, config_.timing, plan_threads_.into(host_ticks_.plan_parallel),
                         std::move(kept_deliveries_));
    host_ticks_.plan_links += plan.link_ticks;
  }
  // After the plan: a fabric checks its copies after the fabrics that went on before it
  // (in the batch's order) have run theirs, as when each planned alone.
  if (!copies_of_phase_.empty()) check_copies();  // adds to errors_
  // Reported in this order: messages between IPUs, the plan's, the copies'. A message to
  // or from another IPU names a tile absent from this plan, an error of the plan too:
  // only a plan with errors needs the walk over every posting that finds them.
  std::vector<Problem> copy_errors = std::move(errors_);
  errors_.clear();
  if (!plan.errors.empty()) errors_ = cross_ipu_errors(entries);
  errors_.insert(errors_.end(), plan.errors.begin(), plan.errors.end());
  errors_.insert(errors_.end(), copy_errors.begin(), copy_errors.end());
  // Delivered by the batch: errors_ holds what deliver() added, as if it ran here.
  if (errors_.empty() && !delivered) deliver(plan);  // a failed copy adds to errors_
  outcomes = std::move(plan.tiles);
  if (!group_ || config_.ipus <= 1) {
    kept_deliveries_ = std::move(plan.deliveries);  // for the next plan (exchange_plan.h)
    kept_deliveries_.clear();
  }
  return true;
}

std::vector<Problem> ExchangeFabric::cross_ipu_errors(const std::vector<Entry>& entries) const {
  std::vector<Problem> out;
  if (config_.ipus <= 1) return out;  // the ISS refuses tile ids outside the system
  const uint32_t first = config_.ipu * config_.tiles, last = first + config_.tiles;
  for (const Entry& e : entries) {
    if (!e.msg) continue;
    const iss::PostingsRef posts = postings_of(*e.msg);
    for (size_t i = 0; i < posts.size(); ++i) {
      const iss::PostingView p = posts.view(i);
      for (uint32_t peer : p.peers)
        if (peer < first || peer >= last) {
          const bool send = p.kind == iss::ExchangePost::Kind::Send;
          Problem x = fabric_problem(
              "between IPUs", e.tile,
              fmt::format("tile {} (ipu {}) {} {} bytes {} tile {} (ipu {}, pc 0x{:08x}) in an exchange phase after a "
                          "zone-1 sync: an exchange between IPUs needs a zone-2 (group) sync before it",
                          first + e.tile, config_.ipu, send ? "sends" : "expects", p.len, send ? "to" : "from",
                          peer, peer / config_.tiles, p.pc));
          x.pc = p.pc;
          x.peer.emplace();
          x.peer->ipu = peer / config_.tiles;
          x.peer->tile = peer % config_.tiles;
          out.push_back(std::move(x));
        }
    }
  }
  return out;
}

std::optional<Problem> ExchangeFabric::read(uint32_t global_tile, uint32_t addr, std::vector<uint8_t>& out) {
  if (out.empty()) return std::nullopt;
  const uint32_t t = global_tile - config_.ipu * config_.tiles;
  if (tile_access(transfer_, tlm::TLM_READ_COMMAND, t, addr, out.data(), uint32_t(out.size()))) return std::nullopt;
  return fabric_problem("tile access failed", t,
                        fmt::format("exchange fabric: reading {} bytes from tile {} at 0x{:08x} failed: {}", out.size(),
                                    global_tile, addr, transfer_.get_response_string()));
}

std::optional<Problem> ExchangeFabric::write(const Delivery& d, tlm::tlm_generic_payload& trans,
                                             std::vector<uint8_t>& bytes) {
  const uint32_t t = d.dst_tile - config_.ipu * config_.tiles;
  if (!tile_access(trans, tlm::TLM_WRITE_COMMAND, t, d.dst_addr, bytes.data(), d.len))
    return fabric_problem("tile access failed", t,
                          fmt::format("exchange fabric: writing {} bytes from tile {} to tile {} at 0x{:08x} failed: {}",
                                      d.len, d.src_tile, d.dst_tile, d.dst_addr, trans.get_response_string()));
  return std::nullopt;
}

std::optional<Problem> ExchangeFabric::copy(ExchangeFabric& src, const Delivery& d, tlm::tlm_generic_payload& trans,
                                            std::vector<uint8_t>& buffer) {
  if (buffer.size() < d.len) buffer.resize(d.len);
  const uint32_t s = d.src_tile - src.config_.ipu * src.config_.tiles;
  const uint32_t t = d.dst_tile - config_.ipu * config_.tiles;
  if (!src.tile_access(trans, tlm::TLM_READ_COMMAND, s, d.src_addr, buffer.data(), d.len) ||
      !tile_access(trans, tlm::TLM_WRITE_COMMAND, t, d.dst_addr, buffer.data(), d.len))
    return src.fabric_problem("tile access failed", s,
                              fmt::format("exchange fabric: copying {} bytes from tile {} at 0x{:08x} to tile {} at "
                                          "0x{:08x} failed: {}",
                                          d.len, d.src_tile, d.src_addr, d.dst_tile, d.dst_addr,
                                          trans.get_response_string()));
  return std::nullopt;
}

ExchangeFabric::Grant ExchangeFabric::ask_grant(uint32_t tile, tlm::tlm_command command, uint64_t addr) {
  Grant g;
  if (tile >= memory_socket.size()) return g;
  tlm::tlm_generic_payload trans;
  trans.set_command(command);
  trans.set_address(addr);
  tlm::tlm_dmi dmi;
  if (!memory_socket[int(tile)]->get_direct_mem_ptr(trans, dmi)) return g;
  const bool allowed = command == tlm::TLM_READ_COMMAND ? dmi.is_read_allowed() : dmi.is_write_allowed();
  if (!allowed || !dmi.get_dmi_ptr() || dmi.get_start_address() > addr || dmi.get_end_address() < addr) return g;
  g.ptr = dmi.get_dmi_ptr();
  g.lo = dmi.get_start_address();
  g.hi = dmi.get_end_address();
  return g;
}

void ExchangeFabric::prepare_direct() {
  for (uint32_t t = 0; t < config_.tiles; ++t) {
    TileGrants& g = grants_[t];
    if (g.asked) continue;
    g.asked = true;
    g.read = ask_grant(t, tlm::TLM_READ_COMMAND, iss::kSramBase);
    // Code sits at the bottom of SRAM (firmware/runtime/tile.ld): the grant at the top
    // covers every buffer a message may write.
    g.write = g.read.lo <= g.read.hi ? ask_grant(t, tlm::TLM_WRITE_COMMAND, g.read.hi) : Grant{};
  }
}

void ExchangeFabric::invalidate_direct_mem_ptr(int id, sc_dt::uint64, sc_dt::uint64) {
  if (id >= 0 && size_t(id) < grants_.size()) grants_[size_t(id)] = TileGrants{};
}

const uint8_t* ExchangeFabric::direct_read(uint32_t global_tile, uint32_t addr, uint32_t len) const {
  return grants_[global_tile - config_.ipu * config_.tiles].read.at(addr, len);
}

uint8_t* ExchangeFabric::direct_write(uint32_t global_tile, uint32_t addr, uint32_t len) const {
  return grants_[global_tile - config_.ipu * config_.tiles].write.at(addr, len);
}

// By parts of whole destination tiles on the plan's threads (exchange_delivery.h).
void ExchangeFabric::deliver(const ExchangePlan& plan) {
  HostTicksScope timed(host_ticks_.delivery);
  const std::vector<Delivery>& all = plan.deliveries;
  prepare_direct();
  Delivered done = deliver_in_parts(
      all, config_.tiles, config_.ipu + 1, plan_threads_.into(host_ticks_.delivery_parallel),
      [&](size_t i) {
        const Delivery& d = all[i];
        return DirectCopy{direct_read(d.src_tile, d.src_addr, d.len), direct_write(d.dst_tile, d.dst_addr, d.len)};
      },
      [&](size_t i, tlm::tlm_generic_payload& trans, std::vector<uint8_t>& buffer) {
        return copy(*this, all[i], trans, buffer);
      });
  count(done.by_ipu[config_.ipu]);
  if (done.problem) errors_.push_back(std::move(*done.problem));
}

void ExchangeFabric::answer(const std::vector<Entry>& entries, const std::vector<TileOutcome>* outcomes,
                            uint64_t failure_cycle) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (!e.trans) continue;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    if (outcomes) {
      e.msg->done_cycle = (*outcomes)[i].done_cycle;
      e.msg->bytes_out = (*outcomes)[i].bytes_out;
      e.msg->bytes_in = (*outcomes)[i].bytes_in;
      const sc_core::sc_time at = clock_.time_of(e.msg->done_cycle);
      if (at > now) delay = at - now;
      e.trans->set_response_status(tlm::TLM_OK_RESPONSE);
    } else {
      e.msg->done_cycle = failure_cycle;  // every poster learns it as of that cycle
      e.msg->problems = &errors_;
      e.trans->set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    }
    tlm::tlm_phase phase = tlm::BEGIN_RESP;
    tile_socket[int(e.tile)]->nb_transport_bw(*e.trans, phase, delay);
  }
}

}  // namespace ipusim::exchange
