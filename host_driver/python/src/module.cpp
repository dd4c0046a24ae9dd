// The native part of the `ipusim` Python package (ipusim._ipusim; docs/python.md): the
// C++ driver's API (ipudrv/device.h, errors.h, elf.h) bound file by file. The package's
// __init__.py re-exports it with a few pure-Python conveniences.
#include "bindings.h"

PYBIND11_MODULE(_ipusim, m) {
  namespace py = pybind11;
  // numpy first: pybind11 reports a failed import inside the bindings only as
  // "initialization failed" (the package's __init__.py adds which interpreter it was built for).
  try {
    py::module_::import("numpy");
  } catch (py::error_already_set& e) {
    throw std::runtime_error("ipusim._ipusim needs numpy, which " +
                             py::str(py::module_::import("sys").attr("executable")).cast<std::string>() +
                             " cannot import (" + e.what() + ")");
  }
  m.doc() = "ipusim's host driver (ipudrv) for Python: open a simulated IPU device, load ELFs, move numpy arrays "
            "through tile and streaming memory and host streams, run it, read its statistics.";
  ipusim_py::bind_records(m);  // before the classes whose members are records, and the errors
  ipusim_py::bind_errors(m);
  ipusim_py::bind_elf(m);
  ipusim_py::bind_stats(m);
  py::class_<ipusim_py::PyDevice> device(m, "Device",
                                         "A device (a whole simulated system) opened by ipusim.open() or "
                                         "DeviceRef.open(). A context manager: `with ipusim.open(...) as dev:` closes "
                                         "it at the end. Every call releases the GIL while the device works.");
  ipusim_py::bind_device(m, device);
  ipusim_py::bind_memory(device);
  ipusim_py::bind_streams(device);
  ipusim_py::bind_run(m, device);
  ipusim_py::bind_tensors(m, device);
  m.def("_close_all_devices", &ipusim_py::close_all_devices,
        "Closes every open device (registered with atexit: a run in flight ends before the interpreter does).");
  py::module_::import("atexit").attr("register")(m.attr("_close_all_devices"));
}
