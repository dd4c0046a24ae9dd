// open / enumerate and the Device's life and control: close, reset, load, abort,
// statistics, per-superstep and link figures, the trace, link faults, error and raw
// registers. Every device call runs with the GIL released (with_device).
#include <chrono>
#include <set>
#include <thread>

#include "bindings.h"

namespace ipusim_py {

namespace {
std::set<PyDevice*> g_open_devices;  // guarded by the GIL
}  // namespace

PyDevice::PyDevice(std::unique_ptr<ipudrv::Device> device) : device_(std::move(device)) {
  g_open_devices.insert(this);
}

PyDevice::~PyDevice() {
  g_open_devices.erase(this);
  try {
    close();
  } catch (...) {
    // Closing never throws in the driver; nothing to report from a destructor anyway.
  }
}

void close_all_devices() {
  const std::set<PyDevice*> open = g_open_devices;
  for (PyDevice* d : open) d->close();
}

std::shared_ptr<ipudrv::Device> PyDevice::device() const {
  if (!device_) throw ipudrv::UsageError("the device is closed");
  return device_;
}

void PyDevice::close() {
  if (!device_) return;
  if (t_in_callback)
    throw ipudrv::UsageError("close: called from a callback of a run, which waits for it; abort() ends the run, "
                             "close() after run() returns");
  std::shared_ptr<ipudrv::Device> d = std::move(device_);
  {
    py::gil_scoped_release release;
    // A call still in flight on another thread (a run) holds the device too: end it, and
    // let the device go only when this is the last owner, so the Python objects below
    // are never dropped under a running transfer.
    // The abort is repeated: one that came while the other thread's run() was between
    // taking the device and starting reached an idle device, and that run went on.
    for (int waited_ms = 0; d.use_count() > 1; ++waited_ms) {
      if (waited_ms % 50 == 0) d->abort();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    d.reset();  // aborts a run_async run, joins its thread, resets the system
  }
  streams.clear();
  console = py::object();
  program_everywhere.reset();
  programs.clear();
}

void PyDevice::stash_callback_error(std::exception_ptr e) {
  std::lock_guard lock(error_mutex_);
  if (!callback_error_) callback_error_ = e;
}

std::exception_ptr PyDevice::take_callback_error() {
  std::lock_guard lock(error_mutex_);
  return std::exchange(callback_error_, nullptr);
}

const ipudrv::Elf* PyDevice::program_on(uint32_t ipu, uint32_t tile) const {
  for (const auto& [r, elf] : programs)
    if (r.ipu == ipu && tile >= r.tile_first && tile - r.tile_first < r.tile_count) return &elf;
  return program_everywhere ? &*program_everywhere : nullptr;
}

ipudrv::TileRange tile_range(const py::handle& obj) {
  if (py::isinstance<ipudrv::TileRange>(obj)) return obj.cast<ipudrv::TileRange>();
  try {
    const auto t = obj.cast<std::tuple<uint32_t, uint32_t, uint32_t>>();
    return {std::get<0>(t), std::get<1>(t), std::get<2>(t)};
  } catch (const py::cast_error&) {
    throw py::type_error("a tile range is a TileRange or an (ipu, tile_first, tile_count) tuple, not " +
                         std::string(py::repr(obj)));
  }
}

namespace {

ipudrv::Elf as_elf(const py::handle& obj) {
  if (py::isinstance<ipudrv::Elf>(obj)) return obj.cast<ipudrv::Elf>();
  const std::string path = py::str(py::module_::import("os").attr("fspath")(obj));
  py::gil_scoped_release release;
  return ipudrv::Elf::from_file(path);
}

ipudrv::OpenOptions open_options(bool use_interrupts, const std::string& trace_path, uint32_t ring_entries,
                                 uint32_t chunk_bytes, uint32_t staging_bytes, std::optional<uint64_t> max_memory,
                                 const std::string& core_dir, std::optional<uint16_t> gdb_port,
                                 std::optional<std::string> rtl, const std::string& waves,
                                 std::optional<std::string> iss) {
  ipudrv::OpenOptions o;
  o.use_interrupts = use_interrupts;
  o.trace_path = trace_path;
  o.ring_entries = ring_entries;
  o.chunk_bytes = chunk_bytes;
  o.staging_bytes = staging_bytes;
  o.max_memory = max_memory;
  o.core_dir = core_dir;
  o.gdb_port = gdb_port;
  o.rtl = std::move(rtl);
  o.waves = waves;
  o.iss = std::move(iss);
  return o;
}

#define IPUSIM_OPEN_OPTION_ARGS                                                                              \
  py::kw_only(), py::arg("use_interrupts") = true, py::arg("trace_path") = "", py::arg("ring_entries") = 64, \
      py::arg("chunk_bytes") = 1u << 20, py::arg("staging_bytes") = 4u << 20, py::arg("max_memory") = py::none(), \
      py::arg("core_dir") = "", py::arg("gdb_port") = py::none(), py::arg("rtl") = py::none(), py::arg("waves") = "", \
      py::arg("iss") = py::none()

constexpr const char* kOpenOptionsDoc =
    "Options (OpenOptions): use_interrupts (False: poll registers), trace_path (the superstep trace of every run, "
    "written there), ring_entries / chunk_bytes / staging_bytes (DMA rings and the staging copies of caller "
    "buffers), max_memory (bytes an in-process system may take), core_dir (in-process: one ELF core per IPU of a "
    "run that ends on a problem), gdb_port (in-process: every run waits for gdb-multiarch there; 0: any port), rtl "
    "('sync,link,amp' or 'none': the blocks run as Verilated RTL, replacing the config's cosim; None: the config's), "
    "waves (the RTL blocks' waveforms to this .fst or .vcd file), iss ('jit' or 'interp': the tiles' ISS engine, "
    "the same results either way; None: IPUSIM_ISS, else jit where the translator is built).";

}  // namespace

void bind_device(py::module_& m, py::class_<PyDevice>& cls) {
  py::class_<ipudrv::DeviceRef>(m, "DeviceRef", "One device found by enumerate(); open() makes a session with it.")
      .def_property_readonly("info", &ipudrv::DeviceRef::info, "DeviceInfo")
      .def(
          "open",
          [](const ipudrv::DeviceRef& ref, bool use_interrupts, const std::string& trace_path, uint32_t ring_entries,
             uint32_t chunk_bytes, uint32_t staging_bytes, std::optional<uint64_t> max_memory,
             const std::string& core_dir, std::optional<uint16_t> gdb_port, std::optional<std::string> rtl,
             const std::string& waves, std::optional<std::string> iss) {
            const auto o = open_options(use_interrupts, trace_path, ring_entries, chunk_bytes, staging_bytes,
                                        max_memory, core_dir, gdb_port, std::move(rtl), waves, std::move(iss));
            std::unique_ptr<ipudrv::Device> d;
            {
              py::gil_scoped_release release;
              d = ref.open(o);
            }
            return std::make_unique<PyDevice>(std::move(d));
          },
          IPUSIM_OPEN_OPTION_ARGS, (std::string("Opens the device. ") + kOpenOptionsDoc).c_str())
      .def("__repr__", [](const ipudrv::DeviceRef& r) { return "<DeviceRef " + r.info().locator + ">"; });

  m.def(
      "enumerate",
      [](const std::string& locator) {
        py::gil_scoped_release release;
        return ipudrv::enumerate(locator);
      },
      py::arg("locator"),
      "The devices behind a locator: 'config:PATH' (or a plain path: a system config elaborated in this "
      "process) or 'unix:PATH' (an `ipusim serve` socket). One device, the whole system.");
  m.def(
      "open",
      [](const std::string& locator, uint32_t device, bool use_interrupts, const std::string& trace_path,
         uint32_t ring_entries, uint32_t chunk_bytes, uint32_t staging_bytes, std::optional<uint64_t> max_memory,
         const std::string& core_dir, std::optional<uint16_t> gdb_port, std::optional<std::string> rtl,
         const std::string& waves, std::optional<std::string> iss) {
        const auto o = open_options(use_interrupts, trace_path, ring_entries, chunk_bytes, staging_bytes, max_memory,
                                    core_dir, gdb_port, std::move(rtl), waves, std::move(iss));
        std::unique_ptr<ipudrv::Device> d;
        {
          py::gil_scoped_release release;
          d = ipudrv::open(locator, device, o);
        }
        return std::make_unique<PyDevice>(std::move(d));
      },
      py::arg("locator"), py::arg("device") = 0, IPUSIM_OPEN_OPTION_ARGS,
      (std::string("Opens device `device` behind `locator` (enumerate(locator)[device].open(...), with a UsageError "
                   "naming the device count). ") +
       kOpenOptionsDoc)
          .c_str());

  cls.def_property_readonly(
         "info", [](PyDevice& self) { return self.device()->info(); }, "DeviceInfo: what the boards report")
      .def_property_readonly("closed", &PyDevice::closed, "True once close() was called")
      .def("close", &PyDevice::close,
           "Aborts a run in flight, waits for it, resets every board and releases the session (the socket, or the "
           "in-process system for the next open). Drops the stream buffers and callbacks. Idempotent.")
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyDevice& self, py::args) { self.close(); })
      .def(
          "reset",
          [](PyDevice& self) {
            with_device(self, [](ipudrv::Device& d) { d.reset(); });
            self.program_everywhere.reset();
            self.programs.clear();
          },
          "CTRL.RESET: unboots every tile, clears stats, errors and streams, forgets the loaded programs; "
          "streaming-memory allocations stay.")
      .def(
          "load",
          [](PyDevice& self, const py::object& program) {
            if (py::isinstance<py::dict>(program)) {
              std::map<ipudrv::TileRange, ipudrv::Elf> programs;
              for (const auto& [k, v] : program.cast<py::dict>()) {
                const ipudrv::TileRange r = tile_range(k);
                if (!programs.emplace(r, as_elf(v)).second)
                  throw ipudrv::UsageError("load: tile range " + std::string(py::repr(k)) + " given twice");
              }
              with_device(self, [&](ipudrv::Device& d) { d.load(programs); });
              self.program_everywhere.reset();
              self.programs = std::move(programs);
            } else {
              ipudrv::Elf elf = as_elf(program);
              with_device(self, [&](ipudrv::Device& d) { d.load(elf); });
              self.programs.clear();
              self.program_everywhere = std::move(elf);
            }
          },
          py::arg("program"),
          "Resets, then loads and boots. `program`: an Elf or a path (every tile of every IPU), or a dict "
          "{(ipu, tile_first, tile_count) or TileRange: Elf or path} (ranges must not overlap).")
      .def(
          "abort", [](PyDevice& self) { with_device(self, [](ipudrv::Device& d) { d.abort(); }); },
          "CTRL.ABORT: the run ends (run() raises DeviceStateError 'aborted'), in any state; returns at once; "
          "callable from any thread while a run is in flight. reset() or load() makes the device ready again.")
      .def(
          "stats", [](PyDevice& self) { return with_device(self, [](ipudrv::Device& d) { return d.stats(); }); },
          "RunStats now (also while run_async runs)")
      .def(
          "state", [](PyDevice& self) { return with_device(self, [](ipudrv::Device& d) { return d.state(); }); },
          "STATUS.STATE: one of ipusim.STATE_*")
      .def(
          "set_trace",
          [](PyDevice& self, const py::object& path) {
            const std::string p =
                path.is_none() ? std::string() : std::string(py::str(py::module_::import("os").attr("fspath")(path)));
            with_device(self, [&](ipudrv::Device& d) { d.set_trace(p); });
          },
          py::arg("path"),
          "The superstep trace (Perfetto JSON) of the runs started after this call, written at `path` (on the "
          "device's host) when the program's run ends; None or '' stops tracing.")
      .def(
          "set_link_faults",
          [](PyDevice& self, const std::string& items) {
            with_device(self, [&](ipudrv::Device& d) { d.set_link_faults(items); });
          },
          py::arg("items"),
          "Faults on the device's IPU-Links in every program run started after this call: '[LINK:]SPEC' items "
          "separated by ';' ('ber=1e-6,seed=7', 'none'), as `ipusim run --link-faults`.")
      .def(
          "console_lines_dropped",
          [](PyDevice& self) { return with_device(self, [](ipudrv::Device& d) { return d.console_lines_dropped(); }); },
          "Console lines a run printed while no run() waited for it, as of the last run's end.")
      .def(
          "link_stats",
          [](PyDevice& self) { return with_device(self, [](ipudrv::Device& d) { return d.link_stats(); }); },
          "list of LinkStats as of the last run's end")
      .def(
          "superstep_stats",
          [](PyDevice& self, std::optional<uint32_t> ipu) -> py::object {
            if (ipu) return py::cast(with_device(self, [&](ipudrv::Device& d) { return d.superstep_stats(*ipu); }));
            return py::cast(with_device(self, [](ipudrv::Device& d) { return d.superstep_stats(); }));
          },
          py::arg("ipu") = py::none(),
          "SuperstepStats since the program started, as of the last run's end: [ipu][k] for every device IPU, or "
          "[k] of one `ipu`.")
      .def(
          "superstep_array",
          [](PyDevice& self, uint32_t ipu) {
            return superstep_array(with_device(self, [&](ipudrv::Device& d) { return d.superstep_stats(ipu); }));
          },
          py::arg("ipu") = 0,
          "superstep_stats(ipu) as a numpy structured array (SUPERSTEP_DTYPE): a['sync_cycles'] is a column.")
      .def(
          "error_registers",
          [](PyDevice& self) { return with_device(self, [](ipudrv::Device& d) { return d.error_registers(); }); },
          "DeviceErrorInfo: the device's error registers now (code 0: none)")
      .def(
          "read_register",
          [](PyDevice& self, uint32_t offset, uint32_t board) {
            return with_device(self, [&](ipudrv::Device& d) { return d.read_register(board, offset); });
          },
          py::arg("offset"), py::arg("board") = 0, "A BAR0 register of `board` (diagnostics and device tests).")
      .def(
          "write_register",
          [](PyDevice& self, uint32_t offset, uint32_t value, uint32_t board) {
            with_device(self, [&](ipudrv::Device& d) { d.write_register(board, offset, value); });
          },
          py::arg("offset"), py::arg("value"), py::arg("board") = 0, "Writes a BAR0 register of `board`.")
      .def(
          "symbol_address",
          [](PyDevice& self, uint32_t ipu, uint32_t tile, const std::string& symbol) {
            return with_device(self, [&](ipudrv::Device& d) { return d.symbol_address(ipu, tile, symbol); });
          },
          py::arg("ipu"), py::arg("tile"), py::arg("symbol"),
          "The address of `symbol` in the ELF loaded on that tile (UsageError if none).")
      .def("__repr__", [](PyDevice& self) {
        return self.closed() ? std::string("<Device closed>") : "<Device " + self.device()->info().locator + ">";
      });
}

}  // namespace ipusim_py
