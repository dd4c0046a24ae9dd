// Python buffers as the driver's byte spans, without copies: the caller's memory is what
// the driver's DMA staging copies from or into (docs/python.md "Zero-copy").
#include <cmath>
#include <limits>

#include "bindings.h"

namespace ipusim_py {

ByteView byte_view(const py::object& obj, bool writable, const char* what) {
  if (!PyObject_CheckBuffer(obj.ptr()))
    throw py::type_error(std::string(what) + ": a bytes-like object or numpy array is needed, not " +
                         std::string(py::str(obj.get_type().attr("__name__"))));
  const int flags = PyBUF_ND | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
  auto view = std::make_unique<Py_buffer>();
  if (PyObject_GetBuffer(obj.ptr(), view.get(), flags) != 0) {
    PyErr_Clear();
    throw py::type_error(std::string(what) + ": the buffer must be C-contiguous" +
                         (writable ? " and writable" : "") + " (numpy.ascontiguousarray makes one)");
  }
  ByteView out;
  out.data = static_cast<std::byte*>(view->buf);
  out.bytes = static_cast<size_t>(view->len);
  out.info = std::make_shared<py::buffer_info>(view.release(), true);  // releases the view when dropped
  return out;
}

std::pair<py::array, ByteView> new_array(const py::object& count, const py::object& dtype, size_t default_bytes,
                                         const char* what) {
  const py::dtype dt = py::dtype::from_args(dtype);
  py::object shape = count;
  if (count.is_none()) {
    const size_t item = static_cast<size_t>(dt.itemsize());
    if (item == 0 || default_bytes % item != 0)
      throw ipudrv::UsageError(std::string(what) + ": " + std::to_string(default_bytes) + " bytes are not a whole number of " +
                               py::repr(dt).cast<std::string>() + " elements; give count");
    shape = py::int_(default_bytes / item);
  }
  py::array out = py::module_::import("numpy").attr("empty")(shape, dt);
  return {out, byte_view(out, true, what)};
}

std::chrono::milliseconds timeout_ms(const std::optional<double>& seconds) {
  if (!seconds) return std::chrono::milliseconds::max();
  if (!(*seconds >= 0) || !std::isfinite(*seconds))
    throw ipudrv::UsageError("timeout: " + std::to_string(*seconds) + " is not a number of seconds >= 0");
  const double ms = std::ceil(*seconds * 1000.0);
  if (ms >= double(std::numeric_limits<int64_t>::max() / 2)) return std::chrono::milliseconds::max();
  return std::chrono::milliseconds(static_cast<int64_t>(ms));
}

}  // namespace ipusim_py
