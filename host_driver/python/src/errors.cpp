// ipudrv's exception hierarchy as Python exceptions (docs/python.md "Errors"): one class
// per C++ class, the same inheritance, each raised with the device's problem record as
// attributes (None where the device did not name a field, and for host-side errors).
#include <array>

#include "bindings.h"

namespace ipusim_py {
namespace {

constexpr uint32_t kNone = ipudrv::DeviceErrorInfo::kNone;

py::object opt(uint32_t v) { return v == kNone ? py::none() : py::object(py::int_(v)); }
py::object opt(const std::string& s) { return s.empty() ? py::none() : py::object(py::str(s)); }

// The attributes every exception carries, in DeviceErrorInfo's order.
constexpr std::array kFields = {"code",          "code_name", "kind",       "ipu",       "tile",
                                "thread",        "pc",        "function",   "source",    "addr",
                                "cycle",         "count",     "superstep",  "peer_ipu",  "peer_tile",
                                "peer_pc",       "peer_function", "peer_source", "waiting", "absent_count",
                                "absent",        "text"};

struct Classes {
  py::object error, tile_fault, exchange, deadlock, smem, stream, dma, boot, state, budget, reg, timeout,
      transport, protocol, usage, program;
};
Classes* g_classes = nullptr;  // owned by the module for the life of the interpreter

py::object make_class(py::module_& m, const char* name, const char* doc, py::object bases) {
  const std::string qualified = std::string("ipusim.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (!cls) throw py::error_already_set();
  py::object out = py::reinterpret_steal<py::object>(cls);
  m.attr(name) = out;
  return out;
}

// The Python class of a C++ exception: the most derived class first.
py::object class_of(const ipudrv::Error& e) {
  const Classes& c = *g_classes;
  if (dynamic_cast<const ipudrv::TileFaultError*>(&e)) return c.tile_fault;
  if (dynamic_cast<const ipudrv::ExchangeError*>(&e)) return c.exchange;
  if (dynamic_cast<const ipudrv::DeadlockError*>(&e)) return c.deadlock;
  if (dynamic_cast<const ipudrv::StreamingMemoryError*>(&e)) return c.smem;
  if (dynamic_cast<const ipudrv::StreamError*>(&e)) return c.stream;
  if (dynamic_cast<const ipudrv::DmaError*>(&e)) return c.dma;
  if (dynamic_cast<const ipudrv::BootError*>(&e)) return c.boot;
  if (dynamic_cast<const ipudrv::DeviceStateError*>(&e)) return c.state;
  if (dynamic_cast<const ipudrv::BudgetError*>(&e)) return c.budget;
  if (dynamic_cast<const ipudrv::RegisterError*>(&e)) return c.reg;
  if (dynamic_cast<const ipudrv::TimeoutError*>(&e)) return c.timeout;
  if (dynamic_cast<const ipudrv::ProtocolError*>(&e)) return c.protocol;
  if (dynamic_cast<const ipudrv::TransportError*>(&e)) return c.transport;
  if (dynamic_cast<const ipudrv::UsageError*>(&e)) return c.usage;
  if (dynamic_cast<const ipudrv::ProgramError*>(&e)) return c.program;
  return c.error;
}

void raise(const ipudrv::Error& e) {
  py::object cls = class_of(e);
  py::object exc = cls(py::str(e.what()));
  const auto& info = e.device_error();
  if (info) {
    py::object record = py::cast(*info);
    for (const char* f : kFields) exc.attr(f) = record.attr(f);
    exc.attr("device_error") = record;
  }
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

}  // namespace

void bind_errors(py::module_& m) {
  py::class_<ipudrv::DeviceErrorInfo>(m, "DeviceErrorInfo",
                                      "The device's error registers (its problem record) at the time of an error, "
                                      "or now (Device.error_registers()). Fields the device did not name are None.")
      .def_readonly("code", &ipudrv::DeviceErrorInfo::code, "IPU_ERR_* (0: no error); ipusim.ERR_* constants")
      .def_property_readonly(
          "code_name", [](const ipudrv::DeviceErrorInfo& i) { return std::string(ipudrv::device_error_name(i.code)); },
          "The code's name: 'TILE_FAULT', 'EXCHANGE', ... ('NONE' for 0)")
      .def_property_readonly("kind", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.kind); },
                             "ERR_KIND: 'misaligned access', 'length mismatch', 'sync', ...")
      .def_property_readonly("ipu", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.ipu); }, "device IPU")
      .def_property_readonly("tile", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.tile); }, "tile")
      .def_property_readonly("thread", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.thread); },
                             "0: the supervisor; 1..: a worker")
      .def_property_readonly("pc", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.pc); }, "program counter")
      .def_property_readonly("function", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.function); },
                             "the function pc is in (from the ELF the driver loaded on that tile)")
      .def_property_readonly("source", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.source); },
                             "'file.c:LINE' of pc")
      .def_readonly("addr", &ipudrv::DeviceErrorInfo::addr, "ERR_ADDR: the address concerned")
      .def_readonly("cycle", &ipudrv::DeviceErrorInfo::cycle, "tile cycle of a run error")
      .def_readonly("count", &ipudrv::DeviceErrorInfo::count, "errors since reset")
      .def_property_readonly("superstep", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.superstep); },
                             "syncs the tile (deadlock: its IPU) had completed")
      .def_property_readonly("peer_ipu", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.peer_ipu); },
                             "an exchange's other tile: its device IPU")
      .def_property_readonly("peer_tile", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.peer_tile); },
                             "an exchange's other tile")
      .def_property_readonly("peer_pc", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.peer_pc); },
                             "the other tile's pc")
      .def_property_readonly("peer_function", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.peer_function); },
                             "the function peer_pc is in")
      .def_property_readonly("peer_source", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.peer_source); },
                             "'file.c:LINE' of peer_pc")
      .def_readonly("waiting", &ipudrv::DeviceErrorInfo::waiting, "a deadlock: the tiles waiting")
      .def_readonly("absent_count", &ipudrv::DeviceErrorInfo::absent_count,
                    "a deadlock: the tiles that never arrive")
      .def_property_readonly(
          "absent",
          [](const ipudrv::DeviceErrorInfo& i) {
            py::list out;
            for (const auto& t : i.absent) out.append(py::make_tuple(t.ipu, t.tile));
            return out;
          },
          "a deadlock: (ipu, tile) of the first absent tiles (at most IPU_ERR_ABSENT_MAX)")
      .def_property_readonly("text", [](const ipudrv::DeviceErrorInfo& i) { return opt(i.text); },
                             "ERR_TEXT, whole")
      .def("__str__", [](const ipudrv::DeviceErrorInfo& i) { return ipudrv::describe(i); })
      .def("__repr__", [](const ipudrv::DeviceErrorInfo& i) { return "<DeviceErrorInfo " + ipudrv::describe(i) + ">"; });

  m.def("describe", &ipudrv::describe, py::arg("info"),
        "The record as one line: 'TILE_FAULT (1) ipu 0 tile 3 thread 1 pc 0x40010 in f (f.c:42): text'.");
  m.def("device_error_name", [](uint32_t code) { return std::string(ipudrv::device_error_name(code)); },
        py::arg("code"), "The name of an IPU_ERR_* code: 'TILE_FAULT', ... or 'UNKNOWN'.");

  static Classes classes;
  g_classes = &classes;
  Classes& c = classes;
  const py::object exception = py::reinterpret_borrow<py::object>(PyExc_Exception);
  c.error = make_class(m, "Error",
                       "Every failure of the driver. Device-reported errors carry the device's problem record as "
                       "attributes (code, code_name, kind, ipu, tile, thread, pc, function, source, addr, cycle, "
                       "count, superstep, peer_*, waiting, absent_count, absent, text) and device_error (a "
                       "DeviceErrorInfo); host-side errors have them all None.",
                       exception);
  for (const char* f : kFields) c.error.attr(f) = py::none();
  c.error.attr("device_error") = py::none();
  auto sub = [&](const char* name, const char* doc) { return make_class(m, name, doc, c.error); };
  c.tile_fault = sub("TileFaultError", "A tile thread faulted (ERR_TILE_FAULT).");
  c.exchange = sub("ExchangeError", "An invalid exchange (ERR_EXCHANGE); peer_* name the other tile.");
  c.deadlock = sub("DeadlockError", "Tiles wait at a sync nobody completes (ERR_DEADLOCK); waiting, absent.");
  c.smem = sub("StreamingMemoryError", "Streaming memory: a range or alignment error, or no room to allocate.");
  c.stream = sub("StreamError", "A host stream: the device's or the host's side (not connected, dry, overflow).");
  c.dma = sub("DmaError", "A DMA descriptor failed (ERR_DMA_*).");
  c.boot = sub("BootError", "A boot request the device refused (ERR_BOOT).");
  c.state = sub("DeviceStateError", "A command the device's state refused, or abort() (ERR_STATE).");
  c.budget = sub("BudgetError", "The run's cycle or instruction budget was used up (ERR_BUDGET, ERR_INTERRUPTED).");
  c.reg = sub("RegisterError", "A bad register access (ERR_REG).");
  c.timeout = make_class(m, "TimeoutError",
                         "A run (its timeout aborts it first), DMA batch, boot or socket reply that did not finish "
                         "in time. Also a builtins.TimeoutError.",
                         py::make_tuple(c.error, py::reinterpret_borrow<py::object>(PyExc_TimeoutError)));
  c.transport = sub("TransportError", "The link to the device failed (no server, busy server, closed).");
  c.protocol = make_class(m, "ProtocolError", "A peer said something unexpected.", c.transport);
  c.usage = sub("UsageError", "Bad arguments or call order (ids, tile ranges, nothing loaded, busy or closed device).");
  c.program = sub("ProgramError", "An ELF that cannot be loaded (names the file).");

  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const ipudrv::Error& e) {
      raise(e);
    }
  });
}

}  // namespace ipusim_py
