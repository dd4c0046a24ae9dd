// ipudrv's exception hierarchy as Python exceptions (docs/python.md "Errors"): one class
// per C++ class, the same inheritance, each raised with the device's problem record as
// attributes (None where the device did not name a field, and for host-side errors).
#include <string>
#include <vector>

#include "bindings.h"

namespace ipusim_py {
namespace {

// The attributes every exception carries: DeviceErrorInfo's (bind_records made the class
// from hw/host_if/records.yaml, bind_errors adds code_name), read off the class.
std::vector<std::string> record_attributes(py::module_& m) {
  std::vector<std::string> names;
  for (py::handle n : py::module_::import("builtins").attr("dir")(m.attr("DeviceErrorInfo")))
    if (const auto s = n.cast<std::string>(); !s.starts_with("_")) names.push_back(s);
  return names;
}
std::vector<std::string>* g_fields = nullptr;  // record_attributes, for the life of the interpreter

struct Classes {
  py::object error, tile_fault, exchange, deadlock, smem, stream, dma, boot, state, budget, reg, model, output, timeout,
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
  if (dynamic_cast<const ipudrv::ModelError*>(&e)) return c.model;
  if (dynamic_cast<const ipudrv::OutputError*>(&e)) return c.output;
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
    for (const std::string& f : *g_fields) exc.attr(f.c_str()) = record.attr(f.c_str());
    exc.attr("device_error") = record;
  }
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

}  // namespace

void bind_errors(py::module_& m) {
  // DeviceErrorInfo is a host record (bind_records made the class): the code's name and
  // the record as describe() puts it.
  py::reinterpret_borrow<py::class_<ipudrv::DeviceErrorInfo>>(m.attr("DeviceErrorInfo"))
      .def_property_readonly(
          "code_name", [](const ipudrv::DeviceErrorInfo& i) { return std::string(ipudrv::device_error_name(i.code)); },
          "The code's name: 'TILE_FAULT', 'EXCHANGE', ... ('NONE' for 0)")
      .def("__str__", [](const ipudrv::DeviceErrorInfo& i) { return ipudrv::describe(i); });
  static std::vector<std::string> fields = record_attributes(m);
  g_fields = &fields;

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
  for (const std::string& f : fields) c.error.attr(f.c_str()) = py::none();
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
  c.model = sub("ModelError", "A model stopped the run (ERR_MODEL): a block running as RTL failed its own check; open the device again.");
  c.output = sub("OutputError", "The run ended, but a file the device writes for it could not be written (ERR_OUTPUT): a waveform or the run's trace; the device goes on.");
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
