// The driver's plain records as Python objects with attributes (DeviceInfo, SmemBuffer,
// TileRange; the host records, SuperstepStats, LinkStats, RunResult, ..., are
// records_bindings.cpp's, generated, with RunResult.superstep_array and ConsoleLine's
// str() added here), the per-superstep figures as a numpy structured array for plotting,
// and the register map's STATE_* / ERR_* constants.
#include <ipu/hostif_regs.h>

#include <pybind11/operators.h>

#include <cstring>

#include "bindings.h"

namespace ipusim_py {

py::array superstep_array(const std::vector<ipudrv::SuperstepStats>& steps) {
  py::array_t<ipudrv::SuperstepStats> out(static_cast<py::ssize_t>(steps.size()));
  if (!steps.empty()) std::memcpy(out.mutable_data(), steps.data(), steps.size() * sizeof(ipudrv::SuperstepStats));
  return out;
}

namespace {

constexpr const char* kSuperstepArrayDoc =
    "The per-superstep figures of device IPU `ipu` as a numpy structured array, one row per superstep, "
    "fields as SuperstepStats' (tiles, exchanging_tiles, incomplete_tiles, begin_cycle, end_cycle, "
    "compute_cycles, sync_cycles, exchange_cycles, instructions, exchange_bytes): a['compute_cycles'] is a column.";

}  // namespace

void bind_stats(py::module_& m) {
  using ipudrv::DeviceInfo;
  py::class_<DeviceInfo>(m, "DeviceInfo", "What the device's boards report in their identification registers.")
      .def_readonly("locator", &DeviceInfo::locator, "how it was found ('unix:/tmp/s', 'config:configs/pod16.yaml')")
      .def_readonly("version_major", &DeviceInfo::version_major, "register map version")
      .def_readonly("version_minor", &DeviceInfo::version_minor, "register map version")
      .def_readonly("board_index", &DeviceInfo::board_index, "the device's first board")
      .def_readonly("boards", &DeviceInfo::boards, "boards of the device, each with its own host interface")
      .def_readonly("ipus", &DeviceInfo::ipus, "IPUs of the device: device IPUs 0 .. ipus - 1")
      .def_readonly("ipus_per_board", &DeviceInfo::ipus_per_board,
                    "device IPU i is IPU i % ipus_per_board of board i // ipus_per_board")
      .def_readonly("tiles_per_ipu", &DeviceInfo::tiles_per_ipu, "tiles of each IPU")
      .def_readonly("workers", &DeviceInfo::workers, "worker threads per tile")
      .def_readonly("system_ipus", &DeviceInfo::system_ipus, "IPUs of the simulated system (= ipus)")
      .def_readonly("sram_bytes", &DeviceInfo::sram_bytes, "per tile, from SRAM_BASE")
      .def_readonly("tile_clock_khz", &DeviceInfo::tile_clock_khz, "the tiles' clock")
      .def_readonly("smem_bytes", &DeviceInfo::smem_bytes, "streaming memory of each board (0: none)")
      .def_readonly("host_link_mbps", &DeviceInfo::host_link_mbps, "the host link's rate")
      .def_readonly("stream_fifo_bytes", &DeviceInfo::stream_fifo_bytes, "bytes of each host stream FIFO")
      .def_readonly("has_streams", &DeviceInfo::has_streams, "the boards have host streams")
      .def_readonly("amp_f16_macs", &DeviceInfo::amp_f16_macs, "AMP f16 multiply-accumulates per cycle per tile")
      .def_readonly("amp_f32_macs", &DeviceInfo::amp_f32_macs, "AMP f32 multiply-accumulates per cycle per tile")
      .def_readonly("in_process", &DeviceInfo::in_process,
                    "True: the system runs in this process; False: in an `ipusim serve` (a unix: locator, or the "
                    "driver's own child for a config: system the process's model cannot take)")
      .def("__repr__", [](const DeviceInfo& i) {
        return "<DeviceInfo " + i.locator + ": " + std::to_string(i.boards) + " board(s), " + std::to_string(i.ipus) +
               " IPU(s) of " + std::to_string(i.tiles_per_ipu) + " tiles>";
      });

  // RunResult is a host record (bind_records made the class); a numpy view of its supersteps.
  using ipudrv::RunResult;
  py::reinterpret_borrow<py::class_<RunResult>>(m.attr("RunResult"))
      .def(
          "superstep_array", [](const RunResult& r, uint32_t ipu) {
            if (ipu >= r.supersteps.size())
              throw ipudrv::UsageError("superstep_array: ipu " + std::to_string(ipu) + ": the device has " +
                                       std::to_string(r.supersteps.size()) + " IPU(s)");
            return superstep_array(r.supersteps[ipu]);
          },
          py::arg("ipu") = 0, kSuperstepArrayDoc);
  m.attr("SUPERSTEP_DTYPE") = py::dtype::of<ipudrv::SuperstepStats>();  // bind_records registered it

  // ConsoleLine is a host record (bind_records made the class); its str() is the driver's line.
  using ipudrv::ConsoleLine;
  py::reinterpret_borrow<py::class_<ConsoleLine>>(m.attr("ConsoleLine")).def("__str__", [](const ConsoleLine& l) {
    std::string s = ipudrv::format_console_line(l);
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  });
  m.def("format_console_line", &ipudrv::format_console_line, py::arg("line"),
        "The line as `ipusim run` prints it, newline included: '[ipu 0 tile 3] text'.");
  m.def("print_console_line", &ipudrv::print_console_line, py::arg("line"),
        "The driver's default console handler: format_console_line to the process's C stdout, flushed. Given to "
        "Device.set_console, lines reach it without Python.");

  using ipudrv::SmemBuffer;
  py::class_<SmemBuffer>(m, "SmemBuffer", "A range of a board's streaming memory, from Device.alloc_smem.")
      .def_readonly("offset", &SmemBuffer::offset, "offset in the board's streaming memory")
      .def_readonly("bytes", &SmemBuffer::bytes, "its size")
      .def_readonly("board", &SmemBuffer::board, "the board whose streaming memory it is")
      .def("__repr__", [](const SmemBuffer& b) {
        return "<SmemBuffer board " + std::to_string(b.board) + " [" + std::to_string(b.offset) + ", +" +
               std::to_string(b.bytes) + ")>";
      });

  using ipudrv::TileRange;
  py::class_<TileRange>(m, "TileRange", "Tiles [tile_first, tile_first + tile_count) of device IPU `ipu`.")
      .def(py::init([](uint32_t ipu, uint32_t first, uint32_t count) { return TileRange{ipu, first, count}; }),
           py::arg("ipu"), py::arg("tile_first"), py::arg("tile_count"))
      .def_readonly("ipu", &TileRange::ipu, "device IPU")
      .def_readonly("tile_first", &TileRange::tile_first, "the first tile")
      .def_readonly("tile_count", &TileRange::tile_count, "tiles in the range")
      .def(py::self == py::self)
      .def("__hash__", [](const TileRange& r) { return py::hash(py::make_tuple(r.ipu, r.tile_first, r.tile_count)); })
      .def("__repr__", [](const TileRange& r) {
        return "TileRange(" + std::to_string(r.ipu) + ", " + std::to_string(r.tile_first) + ", " +
               std::to_string(r.tile_count) + ")";
      });

  // The register map's values (hw/host_if/registers.yaml): Device.state(), error codes.
  m.attr("STATE_IDLE") = IPU_STATE_IDLE;
  m.attr("STATE_READY") = IPU_STATE_READY;
  m.attr("STATE_RUNNING") = IPU_STATE_RUNNING;
  m.attr("STATE_PAUSED") = IPU_STATE_PAUSED;
  m.attr("STATE_HALTED") = IPU_STATE_HALTED;
  m.attr("STATE_STREAM_WAIT") = IPU_STATE_STREAM_WAIT;
  m.attr("STATE_ERROR") = IPU_STATE_ERROR;
  m.attr("ERR_NONE") = IPU_ERR_NONE;
  m.attr("ERR_TILE_FAULT") = IPU_ERR_TILE_FAULT;
  m.attr("ERR_EXCHANGE") = IPU_ERR_EXCHANGE;
  m.attr("ERR_DEADLOCK") = IPU_ERR_DEADLOCK;
  m.attr("ERR_SMEM_RANGE") = IPU_ERR_SMEM_RANGE;
  m.attr("ERR_SMEM_ALIGN") = IPU_ERR_SMEM_ALIGN;
  m.attr("ERR_STREAM") = IPU_ERR_STREAM;
  m.attr("ERR_DMA_HOST_ADDR") = IPU_ERR_DMA_HOST_ADDR;
  m.attr("ERR_DMA_DESC") = IPU_ERR_DMA_DESC;
  m.attr("ERR_DMA_TILE") = IPU_ERR_DMA_TILE;
  m.attr("ERR_BOOT") = IPU_ERR_BOOT;
  m.attr("ERR_REG") = IPU_ERR_REG;
  m.attr("ERR_STATE") = IPU_ERR_STATE;
  m.attr("ERR_STREAM_OVERFLOW") = IPU_ERR_STREAM_OVERFLOW;
  m.attr("ERR_BUDGET") = IPU_ERR_BUDGET;
  m.attr("ERR_INTERRUPTED") = IPU_ERR_INTERRUPTED;
  m.attr("ERR_MODEL") = IPU_ERR_MODEL;
  m.attr("ERR_OUTPUT") = IPU_ERR_OUTPUT;
  m.attr("SRAM_BASE") = uint32_t(IPU_SRAM_BASE);
  m.attr("STREAMS") = uint32_t(IPU_STREAMS);
  m.attr("BAR0_BYTES") = uint32_t(IPU_BAR0_BYTES);
}

}  // namespace ipusim_py
