// What the binding files of the `ipusim` Python module share (docs/python.md): the
// Python-side Device (the C++ Device plus the Python objects it must keep alive), the
// helpers that release the GIL around device calls, and the bind_* entry points each
// file defines. One file per part of the API, so a new part adds its own
// bind_* call to module.cpp and touches nothing else.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <stdexcept>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "ipudrv/device.h"
#include "ipudrv/tensor.h"

namespace ipusim_py {

namespace py = pybind11;

// The Device as Python sees it. The C++ Device is shared so that a call in flight (with
// the GIL released) keeps it alive if another thread closes it meanwhile; the last owner
// lets it go without the GIL, because closing joins a run thread that may be waiting for
// the GIL inside a Python callback.
class PyDevice {
 public:
  explicit PyDevice(std::unique_ptr<ipudrv::Device> device);  // registered for close_all_devices()
  ~PyDevice();
  PyDevice(const PyDevice&) = delete;
  PyDevice& operator=(const PyDevice&) = delete;

  // The open device; UsageError once closed. Call with the GIL held.
  std::shared_ptr<ipudrv::Device> device() const;
  bool closed() const { return !device_; }
  // Aborts a run in flight, waits for it, resets the system and drops what the device
  // kept alive (stream buffers, callbacks, the console handler).
  void close();

  // Python objects a connection keeps alive: a buffer (and its exported view) or a
  // callable, per board, stream id and direction.
  struct Kept {
    py::object object;
    std::shared_ptr<py::buffer_info> view;
  };
  std::map<std::tuple<uint32_t, uint32_t, bool>, Kept> streams;  // (board, id, h2d)
  py::object console;                                          // the handler, or None
  // The ELFs of the last load (one for every tile, or one per range), so read_symbol and
  // write_symbol know a symbol's size; forgotten by reset().
  std::optional<ipudrv::Elf> program_everywhere;
  std::map<ipudrv::TileRange, ipudrv::Elf> programs;
  const ipudrv::Elf* program_on(uint32_t ipu, uint32_t tile) const;

  // A Python exception raised in a callback on the run's thread: kept here (the driver
  // sees a C++ exception and ends the run with it), raised again by the run's caller.
  void stash_callback_error(std::exception_ptr e);
  std::exception_ptr take_callback_error();

 private:
  std::shared_ptr<ipudrv::Device> device_;
  std::mutex error_mutex_;
  std::exception_ptr callback_error_;
};

// Closes every device still open: run at interpreter exit (atexit), while a run_async
// thread can still take the GIL for a callback; later, at finalization, it could not.
void close_all_devices();

// Runs f(device) with the GIL released; the device reference is dropped before the GIL is
// taken back (see PyDevice).
template <class F>
auto with_device(PyDevice& self, F&& f) {
  std::shared_ptr<ipudrv::Device> d = self.device();
  py::gil_scoped_release release;
  struct Drop {
    std::shared_ptr<ipudrv::Device>& d;
    ~Drop() { d.reset(); }
  } drop{d};
  return f(*d);
}

// What a Python callback (console, stream fill or drain) throws to the driver when it
// raised: the Python exception itself waits in PyDevice::stash_callback_error, and the
// run's caller raises it (run.cpp). No Python object crosses the driver's threads.
struct CallbackRaised : std::runtime_error {
  CallbackRaised() : std::runtime_error("a Python callback raised an exception") {}
};

// True on a thread while it runs a Python callback of a run (close() there would wait
// for the run that waits for the callback).
inline thread_local int t_in_callback = 0;

// Runs fn() with the GIL, on whatever thread the driver calls back from.
template <class F>
auto call_python(PyDevice* self, F&& fn) {
  py::gil_scoped_acquire gil;
  struct Depth {
    Depth() { ++t_in_callback; }
    ~Depth() { --t_in_callback; }
  } depth;
  try {
    return fn();
  } catch (py::error_already_set&) {
    self->stash_callback_error(std::current_exception());
    throw CallbackRaised();
  }
}

// A caller's buffer as bytes, without a copy: any C-contiguous buffer (numpy arrays,
// bytes, bytearray, memoryview, array.array); `writable` for the buffers the device fills.
// The buffer_info holds the exported view while the bytes are in use. TypeError names
// `what` for a buffer that is not contiguous or not writable.
struct ByteView {
  std::shared_ptr<py::buffer_info> info;
  std::byte* data = nullptr;
  size_t bytes = 0;
  std::span<const std::byte> in() const { return {data, bytes}; }
  std::span<std::byte> out() const { return {data, bytes}; }
};
ByteView byte_view(const py::object& obj, bool writable, const char* what);

// A new numpy array of `count` (an int or a shape tuple) elements of `dtype`, or None:
// `bytes` / itemsize elements. Returns the array and its bytes.
std::pair<py::array, ByteView> new_array(const py::object& count, const py::object& dtype, size_t default_bytes,
                                         const char* what);

// Per-superstep figures as a numpy structured array (stats.cpp; SUPERSTEP_DTYPE).
py::array superstep_array(const std::vector<ipudrv::SuperstepStats>& steps);
// A TileRange from a TileRange or an (ipu, tile_first, tile_count) tuple (device.cpp).
ipudrv::TileRange tile_range(const py::handle& obj);

// Seconds (float or None) -> the driver's milliseconds (None: no limit).
std::chrono::milliseconds timeout_ms(const std::optional<double>& seconds);

// The binding files.
void bind_errors(py::module_& m);                      // errors.cpp: the exception classes
void bind_elf(py::module_& m);                         // elf.cpp: Elf, ElfSegment
void bind_records(py::module_& m);                     // records_bindings.cpp (generated): SuperstepStats, LinkStats, DmaStats, ...
void bind_stats(py::module_& m);                       // stats.cpp: DeviceInfo, RunResult, ... constants
void bind_device(py::module_& m, py::class_<PyDevice>& cls);  // device.cpp: open, enumerate, load, control
void bind_memory(py::class_<PyDevice>& cls);           // memory.cpp: tiles, symbols, streaming memory
void bind_streams(py::class_<PyDevice>& cls);          // streams.cpp: host streams and the console
void bind_run(py::module_& m, py::class_<PyDevice>& cls);     // run.cpp: run, run_async, RunFuture
void bind_tensors(py::module_& m, py::class_<PyDevice>& cls); // tensors.cpp: TensorLayout, write/read_tensor, dma_stats

}  // namespace ipusim_py
