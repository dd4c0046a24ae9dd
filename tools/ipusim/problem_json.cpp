#include "problem_json.h"

namespace ipusim::cli {
namespace {

nlohmann::ordered_json id(uint32_t v) { return v == Problem::kNone ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(v); }

nlohmann::ordered_json number(const std::optional<uint64_t>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json tiles(const std::vector<SyncTile>& list) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const SyncTile& t : list) a.push_back({{"ipu", t.ipu}, {"tile", t.tile}, {"why", t.why}});
  return a;
}

nlohmann::ordered_json text_or_null(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

// x and f indexed by register number (f as IEEE bit patterns), as gdb numbers them.
nlohmann::ordered_json registers_json(const ThreadRegisters& r) {
  nlohmann::ordered_json j;
  j["pc"] = r.pc;
  j["x"] = r.x;
  j["f"] = r.f;
  j["fcsr"] = r.fcsr;
  return j;
}

}  // namespace

nlohmann::ordered_json problem_json(const Problem& p) {
  nlohmann::ordered_json j;
  j["code"] = code_name(p.code);
  j["kind"] = p.kind;
  j["ipu"] = id(p.ipu);
  j["tile"] = id(p.tile);
  j["thread"] = id(p.thread);
  j["pc"] = id(p.pc);
  j["function"] = text_or_null(p.function);
  j["source"] = text_or_null(p.source);
  j["address"] = number(p.address);
  j["superstep"] = number(p.superstep);
  j["cycle"] = number(p.cycle);
  if (p.peer)
    j["peer"] = {{"ipu", id(p.peer->ipu)},
                 {"tile", id(p.peer->tile)},
                 {"pc", id(p.peer->pc)},
                 {"function", text_or_null(p.peer->function)},
                 {"source", text_or_null(p.peer->source)}};
  else
    j["peer"] = nullptr;
  j["detail"] = p.detail;
  j["disasm"] = p.disasm.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(p.disasm);
  j["absent"] = tiles(p.absent);
  j["waiting"] = p.waiters.size();
  j["waiters"] = tiles(p.waiters);
  j["registers"] = p.registers ? registers_json(*p.registers) : nlohmann::ordered_json(nullptr);
  j["text"] = to_text(p);
  return j;
}

}  // namespace ipusim::cli
