// The equivalence harness: the same sync traffic into a TLM SyncController and an
// RtlSyncController per IPU, each side with its own GroupSync, from one driver thread
// that plays the tiles. Every arrival is sent to both sides in the same order at the same
// SystemC time; the responses (release cycle, time answered, response status) are kept
// per side and compared by the tests.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "common/payload.h"
#include "cosim/sync/rtl_sync_controller.h"
#include "cosim/waves.h"
#include "sync/group_sync.h"
#include "sync/sync_controller.h"

namespace ipusim::test {

// One tile's end of one side: a socket, its message and what the controller answered.
struct TilePort : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<TilePort> socket;
  tlm::tlm_generic_payload trans;
  sync::SyncMessage msg;
  bool waiting = false;
  uint64_t release = 0;
  sc_core::sc_time answered;  // SystemC time of the release (now + annotated delay)
  std::function<void()> on_release;  // after each release

  explicit TilePort(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
    socket.register_nb_transport_bw(this, &TilePort::bw);
  }

  tlm::tlm_sync_enum send(sync::SyncMessage::Kind kind, uint32_t tile, uint32_t zone, uint64_t cycle,
                          const sc_core::sc_time& at) {
    msg = sync::SyncMessage{};
    msg.kind = kind;
    msg.tile = tile;
    msg.zone = zone;
    msg.cycle = cycle;
    attach_message(trans, msg);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    sc_core::sc_time delay = at > now ? at - now : sc_core::SC_ZERO_TIME;
    if (kind == sync::SyncMessage::Kind::Arrive) waiting = true;
    const tlm::tlm_sync_enum r = socket->nb_transport_fw(trans, phase, delay);
    if (r == tlm::TLM_COMPLETED) waiting = false;
    return r;
  }

  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    EXPECT_EQ(phase, tlm::BEGIN_RESP);
    EXPECT_TRUE(t.is_response_ok());
    EXPECT_TRUE(waiting) << name();
    waiting = false;
    release = msg.release_cycle;
    answered = sc_core::sc_time_stamp() + delay;
    if (on_release) on_release();
    return tlm::TLM_COMPLETED;
  }
};

struct DeadlockLog : sync::SyncObserver {
  std::vector<sync::SyncDeadlock> reports;
  void sync_deadlock(const sync::SyncDeadlock& d) override { reports.push_back(d); }
};

// One side (TLM or RTL) of a system of `ipus` IPUs of `tiles` tiles.
struct Side {
  sync::GroupSync group;
  std::vector<std::unique_ptr<sync::SyncController>> controllers;
  std::vector<std::vector<std::unique_ptr<TilePort>>> ports;  // [ipu][tile]
  DeadlockLog deadlocks;
  sc_core::sc_time epoch = sc_core::SC_ZERO_TIME;

  Side(const std::string& name, bool rtl, uint32_t ipus, const sync::SyncControllerConfig& base,
       cosim::Waves* waves) {
    for (uint32_t i = 0; i < ipus; ++i) {
      sync::SyncControllerConfig c = base;
      c.ipu = i;
      const std::string n = name + "_sync" + std::to_string(i);
      if (rtl)
        controllers.push_back(std::make_unique<cosim::RtlSyncController>(n.c_str(), c, group, waves));
      else
        controllers.push_back(std::make_unique<sync::SyncController>(n.c_str(), c, group));
      controllers.back()->set_observer(&deadlocks);
      controllers.back()->set_epoch(&epoch);
      ports.emplace_back();
      for (uint32_t t = 0; t < c.tiles; ++t) {
        const std::string pn = n + "_tile" + std::to_string(t);
        ports.back().push_back(std::make_unique<TilePort>(pn.c_str()));
        ports.back().back()->socket.bind(controllers.back()->tile_socket);
      }
    }
  }
};

}  // namespace ipusim::test
