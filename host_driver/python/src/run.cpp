// run() and run_async() with the GIL released while the device runs; RunFuture, the
// Future-like result of run_async. A Python exception a callback raised on the run's
// thread comes out of run() / RunFuture.result() as itself.
#include <algorithm>
#include <chrono>
#include <functional>
#include <future>

#include "bindings.h"

namespace ipusim_py {
namespace {

ipudrv::RunOptions run_options(uint32_t supersteps, const std::optional<double>& timeout, uint64_t max_cycles,
                               uint64_t max_instructions) {
  ipudrv::RunOptions o;
  o.supersteps = supersteps;
  o.timeout = timeout_ms(timeout);
  o.max_cycles = max_cycles;
  o.max_instructions = max_instructions;
  return o;
}

// The run's outcome, with a callback's Python exception first: the driver saw only
// CallbackRaised (or what the run did next).
template <class F>
ipudrv::RunResult checked(PyDevice& self, F&& get) {
  try {
    return get();
  } catch (...) {
    if (std::exception_ptr raised = self.take_callback_error()) std::rethrow_exception(raised);
    throw;
  }
}

// Ctrl-C while run() waits: the driver asks this between its waits, without the GIL;
// with it taken, the signal's Python handler runs (on the main thread; elsewhere it is a
// no-op), and what it raised (KeyboardInterrupt) waits as a callback's exception does,
// while the driver aborts the run and waits until the device has settled.
std::function<bool()> python_signals(PyDevice& self, bool& stopped) {
  // At most every 10 ms: the driver's first polls come every 20 us, and taking the GIL
  // from a busy Python thread can take milliseconds each time.
  return [&self, &stopped, next = std::chrono::steady_clock::time_point{}]() mutable {
    const auto now = std::chrono::steady_clock::now();
    if (now < next) return false;
    next = now + std::chrono::milliseconds(10);
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return false;
    stopped = true;
    try {
      throw py::error_already_set();
    } catch (py::error_already_set&) {
      self.stash_callback_error(std::current_exception());
    }
    return true;
  };
}

bool is_keyboard_interrupt(const py::error_already_set& e) { return e.matches(PyExc_KeyboardInterrupt); }

// run_async's result. Holds the Device so that it outlives the run.
class RunFuture {
 public:
  RunFuture(py::object device, std::future<ipudrv::RunResult> f) : device_(std::move(device)), future_(std::move(f)) {}

  bool done() const {
    py::gil_scoped_release release;
    return !future_.valid() || future_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  ipudrv::RunResult result(const std::optional<double>& timeout) {
    if (!result_ && !error_ && !python_error_) {
      // Waits in slices, so that Ctrl-C raises KeyboardInterrupt here (the run goes on).
      const auto limit = timeout_ms(timeout);
      const auto start = std::chrono::steady_clock::now();
      bool ready = false;
      for (;;) {
        const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
        const auto left = limit == std::chrono::milliseconds::max() ? limit : limit - std::min(limit, waited);
        const auto slice = std::min(left, std::chrono::milliseconds(50));
        {
          py::gil_scoped_release release;
          ready = future_.wait_for(slice) == std::future_status::ready;
        }
        if (ready || left <= slice) break;
        if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      }
      if (!ready) {
        PyErr_SetString(PyExc_TimeoutError, "RunFuture.result: the run is still going (abort() ends it)");
        throw py::error_already_set();
      }
      PyDevice& dev = device_.cast<PyDevice&>();
      try {
        result_ = checked(dev, [&] { return future_.get(); });
      } catch (py::error_already_set& e) {
        // A callback's Python exception: kept as the object, since an error_already_set
        // restores its error only once.
        python_error_ = e.value();
      } catch (...) {
        error_ = std::current_exception();
      }
    }
    if (python_error_) {
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(python_error_.ptr())), python_error_.ptr());
      throw py::error_already_set();
    }
    if (error_) std::rethrow_exception(error_);
    return *result_;
  }

 private:
  py::object device_;
  std::future<ipudrv::RunResult> future_;
  std::optional<ipudrv::RunResult> result_;
  std::exception_ptr error_;  // raised again by every result() call
  py::object python_error_;   // the same for a callback's Python exception
};

constexpr const char* kRunArgsDoc =
    "supersteps: supersteps to run (0: until every tile halts); timeout: seconds of wall clock, past which the run "
    "is aborted and TimeoutError raised (None: none); max_cycles / max_instructions: budgets of the program's run "
    "(0: none; used up: BudgetError). The GIL is released while the device runs; callbacks take it on the run's "
    "thread.";

}  // namespace

void bind_run(py::module_& m, py::class_<PyDevice>& cls) {
  py::class_<RunFuture>(m, "RunFuture", "The result of Device.run_async: result(timeout) and done(), as a "
                                        "concurrent.futures.Future.")
      .def("done", &RunFuture::done, "True when the run has ended (result() will not wait)")
      .def("result", &RunFuture::result, py::arg("timeout") = py::none(),
           "Waits for the run (at most `timeout` seconds: then builtins.TimeoutError, the run goes on) and returns "
           "its RunResult, or raises what the run raised (every call alike).");

  cls.def(
         "run",
         [](PyDevice& self, uint32_t supersteps, std::optional<double> timeout, uint64_t max_cycles,
            uint64_t max_instructions) {
           auto o = run_options(supersteps, timeout, max_cycles, max_instructions);
           bool stopped = false;  // the driver aborted the run for a signal
           o.stop_requested = python_signals(self, stopped);
           self.take_callback_error();
           try {
             return checked(self, [&] { return with_device(self, [&](ipudrv::Device& d) { return d.run(o); }); });
           } catch (py::error_already_set& e) {
             // Ctrl-C inside a callback (a console handler): the run loop left, the model
             // may run on; end it, so the device is ready for reset() or load().
             if (!stopped && is_keyboard_interrupt(e)) with_device(self, [](ipudrv::Device& d) { d.abort(); });
             throw;
           }
         },
         py::arg("supersteps") = 0, py::arg("timeout") = py::none(), py::arg("max_cycles") = 0,
         py::arg("max_instructions") = 0,
         (std::string("Runs every board, serving host streams and the console on the way, and returns a RunResult; "
                      "raises the typed error of a device error. ") +
          kRunArgsDoc)
             .c_str())
      .def(
          "run_async",
          [](py::object self_obj, uint32_t supersteps, std::optional<double> timeout, uint64_t max_cycles,
             uint64_t max_instructions) {
            PyDevice& self = self_obj.cast<PyDevice&>();
            const auto o = run_options(supersteps, timeout, max_cycles, max_instructions);
            self.take_callback_error();
            auto f = with_device(self, [&](ipudrv::Device& d) { return d.run_async(o); });
            return RunFuture(self_obj, std::move(f));
          },
          py::arg("supersteps") = 0, py::arg("timeout") = py::none(), py::arg("max_cycles") = 0,
          py::arg("max_instructions") = 0,
          (std::string("Starts the run on a thread of the device's and returns a RunFuture at once; while it runs, "
                       "only stats(), state(), abort(), error_registers() and registers may be called. ") +
           kRunArgsDoc)
              .c_str());
}

}  // namespace ipusim_py
