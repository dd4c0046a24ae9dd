// Host streams connected to Python buffers or callables, and the console handler. The
// device keeps each connected object alive (PyDevice::streams, PyDevice::console); the
// driver's copies of the callbacks hold only a borrowed pointer, so the driver may copy
// and drop them on any thread without the GIL. Callbacks take the GIL on the run's thread.
#include <cstring>

#include "bindings.h"

namespace ipusim_py {
namespace {

// A memoryview over the driver's bytes for the length of one callback, released after
// it, so the view object itself cannot reach the bytes later. (Slices of it and numpy
// arrays made from it are not tracked by Python: a callback copies what it keeps.)
class CallView {
 public:
  CallView(std::byte* data, size_t bytes, bool readonly)
      : view_(py::memoryview::from_memory(data, static_cast<py::ssize_t>(bytes), readonly)) {}
  ~CallView() {
    py::error_scope keep;  // the callback's exception, if any, stays the one raised
    if (PyObject* r = PyObject_CallMethod(view_.ptr(), "release", nullptr)) Py_DECREF(r);
    else PyErr_Clear();
  }
  CallView(const CallView&) = delete;
  CallView& operator=(const CallView&) = delete;
  const py::memoryview& view() const { return view_; }

 private:
  py::memoryview view_;
};

ipudrv::StreamFill fill_callback(PyDevice* self, PyObject* fn, uint32_t id) {
  return [self, fn, id](std::span<std::byte> out) -> size_t {
    return call_python(self, [&]() -> size_t {
      CallView v(out.data(), out.size(), false);
      py::object r = py::reinterpret_borrow<py::object>(fn)(v.view());
      size_t n = 0;
      if (r.is_none()) {
        n = 0;
      } else if (py::isinstance<py::int_>(r)) {
        const long long k = r.cast<long long>();
        if (k < 0 || static_cast<unsigned long long>(k) > out.size()) {
          throw ipudrv::StreamError("host stream " + std::to_string(id) + ": the fill callback returned " +
                                    std::to_string(k) + ", outside 0 .. " + std::to_string(out.size()));
        }
        n = static_cast<size_t>(k);
      } else {
        const ByteView b = byte_view(r, false, "h2d stream fill: the callback's result");
        if (b.bytes > out.size()) {
          throw ipudrv::StreamError("host stream " + std::to_string(id) + ": the fill callback returned " +
                                    std::to_string(b.bytes) + " bytes, more than the " + std::to_string(out.size()) +
                                    " asked for");
        }
        std::memcpy(out.data(), b.data, b.bytes);
        n = b.bytes;
      }
      return n;
    });
  };
}

ipudrv::StreamDrain drain_callback(PyDevice* self, PyObject* fn) {
  return [self, fn](std::span<const std::byte> data) {
    call_python(self, [&] {
      CallView v(const_cast<std::byte*>(data.data()), data.size(), true);
      py::reinterpret_borrow<py::object>(fn)(v.view());
    });
  };
}

void check_callable_or_buffer(const py::object& obj, const char* what) {
  if (!PyCallable_Check(obj.ptr()) && !PyObject_CheckBuffer(obj.ptr()))
    throw py::type_error(std::string(what) + ": a buffer (numpy array, bytes, ...) or a callable is needed, not " +
                         std::string(py::str(obj.get_type().attr("__name__"))));
}

}  // namespace

void bind_streams(py::class_<PyDevice>& cls) {
  cls.def(
         "connect_h2d_stream",
         [](PyDevice& self, uint32_t id, const py::object& source, uint32_t board) {
           check_callable_or_buffer(source, "connect_h2d_stream");
           PyDevice::Kept kept{source, nullptr};
           if (PyObject_CheckBuffer(source.ptr())) {
             const ByteView v = byte_view(source, false, "connect_h2d_stream: source");
             kept.view = v.info;
             with_device(self, [&](ipudrv::Device& d) { d.connect_h2d_stream(board, id, v.in()); });
           } else {
             auto fill = fill_callback(&self, source.ptr(), id);
             with_device(self, [&](ipudrv::Device& d) { d.connect_h2d_stream(board, id, std::move(fill)); });
           }
           self.streams[{board, id, true}] = std::move(kept);
         },
         py::arg("id"), py::arg("source"), py::arg("board") = 0,
         "Connects host-to-device stream `id` of `board` to `source`: a buffer (read front to back in place, kept "
         "alive while connected) or a callable fill(view) -> int | bytes-like | None, called on the run's thread with "
         "a writable memoryview of what the tiles may take; it writes into the view and returns the count, or "
         "returns the bytes (0 / None / b'': no more data). The view is valid during the call only.")
      .def(
          "connect_d2h_stream",
          [](PyDevice& self, uint32_t id, const py::object& sink, uint32_t board) {
            check_callable_or_buffer(sink, "connect_d2h_stream");
            PyDevice::Kept kept{sink, nullptr};
            if (PyObject_CheckBuffer(sink.ptr())) {
              const ByteView v = byte_view(sink, true, "connect_d2h_stream: sink");
              kept.view = v.info;
              with_device(self, [&](ipudrv::Device& d) { d.connect_d2h_stream(board, id, v.out()); });
            } else {
              auto drain = drain_callback(&self, sink.ptr());
              with_device(self, [&](ipudrv::Device& d) { d.connect_d2h_stream(board, id, std::move(drain)); });
            }
            self.streams[{board, id, false}] = std::move(kept);
          },
          py::arg("id"), py::arg("sink"), py::arg("board") = 0,
          "Connects device-to-host stream `id` of `board` to `sink`: a writable buffer (filled front to back in "
          "place; d2h_stream_bytes says how far) or a callable drain(view) called on the run's thread with a "
          "read-only memoryview of the bytes the tiles wrote, valid during the call only (copy what you keep).")
      .def(
          "disconnect_stream",
          [](PyDevice& self, uint32_t id, uint32_t board) {
            with_device(self, [&](ipudrv::Device& d) { d.disconnect_stream(board, id); });
            self.streams.erase({board, id, true});
            self.streams.erase({board, id, false});
          },
          py::arg("id"), py::arg("board") = 0, "Disconnects both directions of stream `id` and lets go of their objects.")
      .def(
          "d2h_stream_bytes",
          [](PyDevice& self, uint32_t id, uint32_t board) {
            return with_device(self, [&](ipudrv::Device& d) { return d.d2h_stream_bytes(board, id); });
          },
          py::arg("id"), py::arg("board") = 0, "Bytes a device-to-host buffer has received.")
      .def(
          "set_console",
          [](PyDevice& self, const py::object& handler) {
            ipudrv::ConsoleHandler h;
            const py::object printer = py::module_::import("ipusim._ipusim").attr("print_console_line");
            if (handler.is(printer)) {
              h = ipudrv::print_console_line;  // no Python on the way: the driver's own printer
            } else if (!handler.is_none()) {
              if (!PyCallable_Check(handler.ptr()))
                throw py::type_error("set_console: a callable(ConsoleLine) or None is needed");
              PyDevice* dev = &self;
              PyObject* fn = handler.ptr();
              h = [dev, fn](const ipudrv::ConsoleLine& line) {
                call_python(dev, [&] { py::reinterpret_borrow<py::object>(fn)(line); });
              };
            }
            with_device(self, [&](ipudrv::Device& d) { d.set_console(std::move(h)); });
            self.console = handler;
          },
          py::arg("handler"),
          "Where the tiles' console lines go from the next run on: handler(ConsoleLine), called on the thread that "
          "runs the run, in `ipusim run`'s order, every line before run() returns; None turns the console off; "
          "ipusim.print_console_line is the driver's default (C stdout). An exception from the handler comes out "
          "of run().");
}

}  // namespace ipusim_py
