// The run's state at a sync as checkpoint sections, and back (docs/checkpoints.md).
//
// run() pauses at the superstep gate (every tile waits at the held sync, the exchange of
// the superstep before it is done: nothing is in flight), the sections are taken there,
// and the run goes on. A restore boots the checkpoint's program on its tiles, puts each
// core's and tile's state and the SRAM pages that differ from the loaded image back, and
// run() starts by sending every tile's saved arrival to its sync controller again: the
// release is computed from the arrivals alone, so it comes at the cycle it would have.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "checkpoint/byte_io.h"
#include "platform/checkpoint_codec.h"
#include "platform/departed_rows.h"
#include "platform/platform.h"

namespace ipusim::platform {
namespace {

using checkpoint::ByteReader;
using checkpoint::ByteWriter;
using checkpoint::CheckpointError;

// SRAM is saved in pages of this size (whatever the host's page size).
constexpr uint32_t kPageBytes = 4096;

// The pages of [base, base + pages * kPageBytes) that may differ from what was mapped or
// loaded there: those the process holds a private copy of (present or swapped, and not a
// file page: /proc/self/pagemap bits 63, 62, 61). A page it has no copy of was never
// written, so it is the image mapped there or zero, as the image is where nothing was
// loaded; reading it to compare would cost a host page per tile page (the image's shared
// memory file allocates on a read). All of them when the kernel does not say.
std::vector<bool> pages_maybe_written(const uint8_t* base, uint32_t pages) {
  std::vector<bool> out(pages, true);
  static const int pagemap = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  const long host_page = ::sysconf(_SC_PAGESIZE);
  if (pagemap < 0 || host_page != long(kPageBytes)) return out;
  std::vector<uint64_t> entries(pages);
  const off_t at = off_t(reinterpret_cast<uintptr_t>(base) / kPageBytes * sizeof(uint64_t));
  const ssize_t want = ssize_t(pages * sizeof(uint64_t));
  if (::pread(pagemap, entries.data(), size_t(want), at) != want) return out;
  for (uint32_t p = 0; p < pages; ++p) {
    const uint64_t e = entries[p];
    const bool present = (e >> 63) & 1, swapped = (e >> 62) & 1, file = (e >> 61) & 1;
    out[p] = (present || swapped) && !file;
  }
  return out;
}

[[noreturn]] void unsupported(const std::string& why) {
  throw CheckpointError(CheckpointError::Kind::Unsupported, "cannot checkpoint here: " + why);
}

[[noreturn]] void mismatch(const std::string& why) {
  throw CheckpointError(CheckpointError::Kind::Corrupt, "the checkpoint does not fit the platform: " + why);
}

}  // namespace

void Platform::simulate_with_checkpoints() {
  bool starved = simulate();
  if (!options_.on_checkpoint || (options_.checkpoint_at == 0 && options_.checkpoint_at_cycle == 0)) return;
  for (;;) {
    const std::optional<RunEnd> end = outcome(starved);
    if (!end || end->kind != RunEndKind::Paused) return;
    hold_run(RunEndKind::Paused);
    uint64_t superstep = 0;
    for (const auto& ipu : ipus_)
      if (ipu->loaded_tiles() > 0) superstep = std::max(superstep, ipu->sync_controller().releases() + 1);
    options_.on_checkpoint(superstep);
    continue_run(std::vector<uint32_t>(ipus_.size(), options_.checkpoint_every));
    starved = simulate();
  }
}

std::vector<checkpoint::Section> Platform::checkpoint_sections(uint64_t superstep) {
  if (run_.state() != RunState::Paused) unsupported(fmt::format("the run is {}, not paused at a sync", state_name(run_.state())));
  if (accounts_.first() > (departed_rows_ ? departed_rows_->count() : 0))
    unsupported(fmt::format("superstep {} is past the {} supersteps the run's figures hold", superstep,
                            accounts_.window_rows()));
  console_.flush();  // every line of the batches before the pause is in; printed now

  ByteWriter run;
  run.u64(superstep);
  run.u32(uint32_t(ipus_.size()));
  run.u32(config_.board.chip.tiles);
  run.u64(console_.lines());
  run.boolean(keep_tile_supersteps_);
  run.u64(tile_superstep_counts_.size());
  for (const uint64_t n : tile_superstep_counts_) run.u64(n);
  for (const auto& ipu : ipus_) {
    const sync::SyncController& sc = ipu->sync_controller();
    // An IPU whose tiles have all halted holds nothing: it takes part no more.
    if (!sc.holding() && sc.departed() < sc.participants())
      unsupported(fmt::format("ipu {} does not hold its sync", ipu->index()));
    run.u64(sc.syncs_completed(1));
    run.u64(sc.syncs_completed(2));
    const exchange::ExchangeFabric& fabric = ipu->exchange_fabric();
    if (!fabric.quiet()) unsupported(fmt::format("ipu {}: an exchange is in flight", ipu->index()));
    const exchange::ExchangeFabric::Counters c = fabric.counters();
    for (const uint64_t v : {c.exchanges, c.failed, c.messages, c.bytes, c.copies, c.copy_bytes}) run.u64(v);
  }
  // The links at a sync: the joint phase of the superstep before is over (each link
  // direction's layer is made and drained within its phase: no frame, ACK or replay
  // outlives it), and no IPU waits in the group's sync.
  if (!exchange_group_->quiet()) unsupported("an exchange between IPUs is in flight");
  if (group_->arrived() != 0) unsupported(fmt::format("{} IPU(s) wait at the group's sync", group_->arrived()));
  const SuperstepAccounts::Saved accounts = accounts_.saved();
  run.u64(accounts.first);
  run.u64(accounts.late);
  run.u64(accounts.counts.size());
  for (const uint64_t n : accounts.counts) run.u64(n);
  run.u64(accounts.rows.size());
  for (const SuperstepRow& row : accounts.rows) codec::put(run, row);

  // The `sram` section is streamed tile by tile into the file (Section::produce), so a
  // checkpoint costs its compressor's window beyond the run, not a copy of every page:
  // here the pages that differ from the loaded image are listed (most of a tile's SRAM
  // is untouched, zero, or still the image), and their bytes are read when written.
  struct TilePages {
    const iss::Sram* mem;
    uint32_t ipu, tile;
    std::vector<uint32_t> pages;
  };
  auto listed = std::make_shared<std::vector<TilePages>>();
  ByteWriter tiles;
  std::vector<uint8_t> image;  // the loaded image of the program, to compare pages with
  const iss::Program* image_of = nullptr;
  uint64_t tile_count = 0;
  for (const auto& ipu : ipus_)
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) tile_count += ipu->tile(t).loaded() ? 1 : 0;
  tiles.u64(tile_count);
  uint64_t sram_bytes = 8;  // the tile count, then per tile its header and pages
  for (auto& ipu : ipus_) {
    for (uint32_t t = 0; t < ipu->tile_count(); ++t) {
      tile::Tile& tile = ipu->tile(t);
      if (!tile.loaded()) continue;
      tiles.u32(ipu->index());
      tiles.u32(t);
      try {
        codec::put(tiles, tile.snapshot());
      } catch (const std::logic_error& e) {
        unsupported(e.what());
      }
      const iss::Program& program = tile.core()->program();
      const iss::Sram& mem = *tile.sram();
      if (image_of != &program || image.size() != mem.size()) {
        iss::Sram scratch(mem.size());
        iss::load_image(scratch, program);
        image.assign(scratch.data(), scratch.data() + scratch.size());
        image_of = &program;
      }
      TilePages listing{&mem, ipu->index(), t, {}};
      sram_bytes += 4 + 4 + 8;
      const std::vector<bool> maybe = pages_maybe_written(mem.data(), (mem.size() + kPageBytes - 1) / kPageBytes);
      for (uint32_t off = 0; off < mem.size(); off += kPageBytes) {
        const uint32_t n = std::min(kPageBytes, mem.size() - off);
        if (maybe[off / kPageBytes] && std::memcmp(mem.data() + off, image.data() + off, n) != 0) {
          listing.pages.push_back(off / kPageBytes);
          sram_bytes += 4 + n;
        }
      }
      listed->push_back(std::move(listing));
    }
  }
  checkpoint::Section sram;
  sram.name = "sram";
  sram.size = sram_bytes;
  // Called by write_checkpoint while the run is still paused here.
  sram.produce = [listed, tile_count](const checkpoint::Section::Emit& emit) {
    ByteWriter w;
    w.u64(tile_count);
    emit(w.data());
    for (const TilePages& t : *listed) {
      w.data().clear();
      w.u32(t.ipu);
      w.u32(t.tile);
      w.u64(t.pages.size());
      emit(w.data());
      for (const uint32_t p : t.pages) {
        const uint32_t off = p * kPageBytes;
        w.data().clear();
        w.u32(p);
        emit(w.data());
        emit({t.mem->data() + off, std::min(kPageBytes, t.mem->size() - off)});
      }
    }
  };
  ByteWriter links;
  codec::put(links, exchange_group_->saved());
  ByteWriter streaming;
  streaming.u32(uint32_t(gateways_.size()));
  for (const auto& gateway : gateways_) {
    try {
      codec::put(streaming, gateway->saved());
    } catch (const std::logic_error& e) {
      unsupported(e.what());
    }
    // The streaming memory's pages, sparse as the memory is (pages never written are not
    // allocated, so not saved).
    const streaming::SparseMemory& memory = gateway->memory();
    const std::vector<uint64_t> pages = memory.page_numbers();
    streaming.u64(memory.size());
    streaming.u64(pages.size());
    for (const uint64_t p : pages) {
      streaming.u64(p);
      streaming.raw(memory.page(p), size_t(std::min<uint64_t>(streaming::SparseMemory::kPageBytes,
                                                                memory.size() - p * streaming::SparseMemory::kPageBytes)));
    }
  }
  std::vector<checkpoint::Section> out;
  try {
    if (departed_rows_) {
      out.push_back({"rows", departed_rows_->section()});
    } else {
      ByteWriter none;
      none.u64(0);
      out.push_back({"rows", std::move(none.data())});
    }
  } catch (const std::runtime_error& e) {
    throw CheckpointError(CheckpointError::Kind::Write, e.what());
  }
  out.push_back({"run", std::move(run.data())});
  out.push_back({"links", std::move(links.data())});
  out.push_back({"streaming", std::move(streaming.data())});
  out.push_back({"tiles", std::move(tiles.data())});
  out.push_back(std::move(sram));
  return out;
}

void Platform::restore_checkpoint(const checkpoint::Checkpoint& ckpt) {
  ByteReader run(ckpt.section("run"), "run");
  const uint64_t superstep = run.u64("superstep");
  const uint32_t ipus = run.u32("IPUs");
  const uint32_t tiles_per_ipu = run.u32("tiles per IPU");
  if (ipus != ipus_.size() || tiles_per_ipu != config_.board.chip.tiles)
    mismatch(fmt::format("{} IPU(s) of {} tiles for a system of {} of {}", ipus, tiles_per_ipu, ipus_.size(),
                         config_.board.chip.tiles));
  RestoredRun restored;
  restored.console_lines = run.u64("console lines");
  restored.keep_tile_supersteps = run.boolean("tiles' supersteps kept");
  restored.tile_superstep_counts.resize(size_t(run.count("tile superstep counts", 8)));
  for (uint64_t& n : restored.tile_superstep_counts) n = run.u64("tile superstep count");
  for (uint32_t i = 0; i < ipus; ++i) {
    restored.sync_releases.push_back({run.u64("zone 1 syncs"), run.u64("zone 2 syncs")});
    exchange::ExchangeFabric::Counters c;
    for (uint64_t* v : {&c.exchanges, &c.failed, &c.messages, &c.bytes, &c.copies, &c.copy_bytes})
      *v = run.u64("exchange counter");
    restored.fabric_counters.push_back(c);
  }
  restored.accounts.first = run.u64("first row");
  restored.accounts.late = run.u64("late records");
  restored.accounts.counts.resize(size_t(run.count("superstep counts", 8)));
  for (uint64_t& n : restored.accounts.counts) n = run.u64("superstep count");
  const uint64_t rows = run.count("rows", 16);
  for (uint64_t i = 0; i < rows; ++i) restored.accounts.rows.push_back(codec::get_row(run, ipus));
  run.expect_end();

  const uint64_t departed = DepartedRows::for_each(ckpt.section("rows"), ipus, [](const SuperstepRow&) {});
  if (departed != restored.accounts.first)
    mismatch(fmt::format("{} superstep row(s) saved before the window, which starts at row {}", departed,
                         restored.accounts.first));
  restored.departed_rows = ckpt.section("rows");

  ByteReader links(ckpt.section("links"), "links");
  restored.links = codec::get_links(links);
  links.expect_end();

  ByteReader streaming(ckpt.section("streaming"), "streaming");
  if (streaming.u32("gateways") != gateways_.size()) mismatch("another number of boards' gateways");
  for (const auto& gateway : gateways_) {
    const streaming::Gateway::Saved saved = codec::get_gateway(streaming);
    const uint64_t size = streaming.u64("streaming memory size");
    if (size != gateway->smem_size())
      mismatch(fmt::format("{} bytes of streaming memory for a board of {}", size, gateway->smem_size()));
    const uint64_t pages = streaming.count("streaming memory pages", 8);
    std::vector<uint8_t> page;
    try {
      gateway->restore(saved);
      for (uint64_t i = 0; i < pages; ++i) {
        const uint64_t number = streaming.u64("streaming memory page");
        if (number >= (size + streaming::SparseMemory::kPageBytes - 1) / streaming::SparseMemory::kPageBytes)
          mismatch(fmt::format("streaming memory page {} past its {} bytes", number, size));
        page.resize(size_t(std::min<uint64_t>(streaming::SparseMemory::kPageBytes,
                                              size - number * streaming::SparseMemory::kPageBytes)));
        streaming.raw(page.data(), page.size(), "streaming memory page bytes");
        gateway->restore_smem_page(number, page);
      }
    } catch (const std::invalid_argument& e) {
      mismatch(e.what());
    }
  }
  streaming.expect_end();

  ByteReader tiles(ckpt.section("tiles"), "tiles");
  ByteReader sram(ckpt.section("sram"), "sram");
  const uint64_t tile_count = tiles.count("tiles", 8);
  if (sram.count("tiles", 8) != tile_count) mismatch("the sram section lists another number of tiles");
  if (tile_count != loaded_tiles())
    mismatch(fmt::format("{} tile(s) saved, {} loaded", tile_count, loaded_tiles()));
  for (uint64_t i = 0; i < tile_count; ++i) {
    const uint32_t ipu = tiles.u32("IPU"), t = tiles.u32("tile");
    if (ipu >= ipus_.size() || t >= ipus_[ipu]->tile_count() || !ipus_[ipu]->tile(t).loaded())
      mismatch(fmt::format("ipu {} tile {} is saved but not loaded", ipu, t));
    tile::Tile& tile = ipus_[ipu]->tile(t);
    const tile::TileSnapshot snap = codec::get_tile(tiles);
    if (sram.u32("IPU") != ipu || sram.u32("tile") != t)
      mismatch(fmt::format("the sram section is not in the tiles section's order at ipu {} tile {}", ipu, t));
    iss::Sram& mem = *tile.sram();
    const uint64_t pages = sram.count("pages", 4);
    for (uint64_t p = 0; p < pages; ++p) {
      const uint32_t page = sram.u32("page");
      const uint64_t off = uint64_t(page) * kPageBytes;
      if (off >= mem.size()) mismatch(fmt::format("ipu {} tile {}: page {} past its SRAM", ipu, t, page));
      sram.raw(mem.data() + off, std::min<uint64_t>(kPageBytes, mem.size() - off), "page bytes");
    }
    try {
      tile.restore(snap);
    } catch (const std::invalid_argument& e) {
      mismatch(e.what());
    }
  }
  tiles.expect_end();
  sram.expect_end();
  restored_run_ = std::move(restored);
  restored_superstep_ = superstep;
}

// After start_run: what the run had counted before the checkpoint.
void Platform::apply_restored_run() {
  if (!restored_run_) return;
  RestoredRun& r = *restored_run_;
  if (r.keep_tile_supersteps != keep_tile_supersteps_ ||
      (keep_tile_supersteps_ && r.tile_superstep_counts.size() != tile_superstep_counts_.size()))
    mismatch("the tiles' superstep records are kept in one and not the other");
  tile_superstep_counts_ = r.tile_superstep_counts;
  console_.restore_lines(r.console_lines);
  for (size_t i = 0; i < ipus_.size(); ++i) {
    Ipu& ipu = *ipus_[i];
    // The tiles that had halted, as their halts were: departed from the syncs, counted.
    for (uint32_t t = 0; t < ipu.tile_count(); ++t) {
      tile::Tile& tile = ipu.tile(t);
      if (!tile.loaded() || tile.state() != tile::TileState::Halted) continue;
      try {
        ipu.sync_controller().restore_departed(t, tile.stop_cycle());
      } catch (const std::invalid_argument& e) {
        mismatch(e.what());
      }
      tile_stopped(tile);
    }
    ipus_[i]->sync_controller().restore_releases(r.sync_releases[i][0], r.sync_releases[i][1]);
    ipus_[i]->exchange_fabric().restore_counters(r.fabric_counters[i]);
  }
  // The rows that had left the window go to the sink first, as they did in the run.
  DepartedRows::for_each(r.departed_rows, uint32_t(ipus_.size()), [this](const SuperstepRow& row) { row_departed(row); });
  accounts_.restore(std::move(r.accounts));
  try {
    exchange_group_->restore(r.links);
  } catch (const std::invalid_argument& e) {
    mismatch(e.what());
  }
  restored_run_.reset();
}

void Platform::row_departed(const SuperstepRow& row) {
  if (departed_rows_) departed_rows_->add(row);
  if (options_.superstep_sink) options_.superstep_sink(row);
}

}  // namespace ipusim::platform
