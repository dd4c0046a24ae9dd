// Tile memory (by address or symbol) and streaming memory with numpy arrays and any other
// C-contiguous buffer: writes read the caller's buffer in place, reads fill `out=` in place
// or a new array; the GIL is released during every transfer.
#include "bindings.h"

namespace ipusim_py {
namespace {

// The array a read fills: `out` (writable, C-contiguous) or a new one of count x dtype.
std::pair<py::object, ByteView> read_target(const py::object& out, const py::object& count, const py::object& dtype,
                                            size_t default_bytes, const char* what) {
  if (!out.is_none()) {
    if (!count.is_none())
      throw ipudrv::UsageError(std::string(what) + ": give count or out, not both");
    return {out, byte_view(out, true, what)};
  }
  return new_array(count, dtype, default_bytes, what);
}

// The bytes of `symbol` on that tile from the ELF loaded there (0: a label, or unknown).
size_t symbol_bytes(PyDevice& self, uint32_t ipu, uint32_t tile, const std::string& symbol, const char* what) {
  const ipudrv::Elf* elf = self.program_on(ipu, tile);
  const auto size = elf ? elf->symbol_size(symbol) : std::nullopt;
  if (!size || *size == 0)
    throw ipudrv::UsageError(std::string(what) + ": the size of '" + symbol + "' on ipu " + std::to_string(ipu) +
                             " tile " + std::to_string(tile) + " is not known (no such symbol in the loaded ELF, "
                             "or a label); give count or out");
  return *size;
}

uint64_t smem_offset(const py::object& where, std::optional<uint32_t>& board) {
  if (py::isinstance<ipudrv::SmemBuffer>(where)) {
    const auto b = where.cast<ipudrv::SmemBuffer>();
    if (board && *board != b.board)
      throw ipudrv::UsageError("board " + std::to_string(*board) + " given for a buffer of board " +
                               std::to_string(b.board));
    board = b.board;
    return b.offset;
  }
  return where.cast<uint64_t>();
}

constexpr const char* kReadDoc =
    " Returns `out` filled in place (a writable C-contiguous buffer), or a new numpy array of `count` elements (an "
    "int or a shape) of `dtype`.";

}  // namespace

void bind_memory(py::class_<PyDevice>& cls) {
  cls.def(
         "write_tile",
         [](PyDevice& self, uint32_t ipu, uint32_t tile, uint32_t addr, const py::object& data) {
           const ByteView v = byte_view(data, false, "write_tile: data");
           with_device(self, [&](ipudrv::Device& d) { d.write_tile(ipu, tile, addr, v.in()); });
         },
         py::arg("ipu"), py::arg("tile"), py::arg("addr"), py::arg("data"),
         "Writes `data` (any C-contiguous buffer: a numpy array, bytes, ...) at tile address `addr`.")
      .def(
          "write_tiles",
          [](PyDevice& self, const py::object& tiles, uint32_t addr, const py::object& data) {
            const ipudrv::TileRange r = tile_range(tiles);
            const ByteView v = byte_view(data, false, "write_tiles: data");
            with_device(self, [&](ipudrv::Device& d) { d.write_tiles(r, addr, v.in()); });
          },
          py::arg("tiles"), py::arg("addr"), py::arg("data"),
          "Broadcasts `data` to address `addr` of every tile of a range ((ipu, tile_first, tile_count) or TileRange).")
      .def(
          "read_tile",
          [](PyDevice& self, uint32_t ipu, uint32_t tile, uint32_t addr, const py::object& count,
             const py::object& dtype, const py::object& out) {
            if (out.is_none() && count.is_none()) throw ipudrv::UsageError("read_tile: give count or out");
            auto target = read_target(out, count, dtype, 0, "read_tile");
            const ByteView v = target.second;
            with_device(self, [&](ipudrv::Device& d) { d.read_tile(ipu, tile, addr, v.out()); });
            return target.first;
          },
          py::arg("ipu"), py::arg("tile"), py::arg("addr"), py::arg("count") = py::none(),
          py::arg("dtype") = "uint8", py::kw_only(), py::arg("out") = py::none(),
          (std::string("Reads tile memory at `addr`.") + kReadDoc).c_str())
      .def(
          "write_symbol",
          [](PyDevice& self, uint32_t ipu, uint32_t tile, const std::string& symbol, const py::object& data) {
            const ByteView v = byte_view(data, false, "write_symbol: data");
            with_device(self, [&](ipudrv::Device& d) { d.write_symbol(ipu, tile, symbol, v.in()); });
          },
          py::arg("ipu"), py::arg("tile"), py::arg("symbol"), py::arg("data"),
          "Writes `data` at `symbol` of the ELF loaded on that tile (UsageError past the symbol's size).")
      .def(
          "read_symbol",
          [](PyDevice& self, uint32_t ipu, uint32_t tile, const std::string& symbol, const py::object& count,
             const py::object& dtype, const py::object& out) {
            const size_t bytes =
                out.is_none() && count.is_none() ? symbol_bytes(self, ipu, tile, symbol, "read_symbol") : 0;
            auto target = read_target(out, count, dtype, bytes, "read_symbol");
            const ByteView v = target.second;
            with_device(self, [&](ipudrv::Device& d) { d.read_symbol(ipu, tile, symbol, v.out()); });
            return target.first;
          },
          py::arg("ipu"), py::arg("tile"), py::arg("symbol"), py::arg("count") = py::none(),
          py::arg("dtype") = "uint8", py::kw_only(), py::arg("out") = py::none(),
          (std::string("Reads `symbol` of the ELF loaded on that tile; without count or out, the whole symbol.") +
           kReadDoc)
              .c_str())
      .def(
          "alloc_smem",
          [](PyDevice& self, uint64_t bytes, uint64_t align, uint32_t board) {
            return with_device(self, [&](ipudrv::Device& d) { return d.alloc_smem(bytes, align, board); });
          },
          py::arg("bytes"), py::arg("align") = 64, py::arg("board") = 0,
          "Allocates `bytes` of a board's streaming memory (first fit); StreamingMemoryError when there is no room.")
      .def(
          "free_smem",
          [](PyDevice& self, const ipudrv::SmemBuffer& buffer) {
            with_device(self, [&](ipudrv::Device& d) { d.free_smem(buffer); });
          },
          py::arg("buffer"), "Frees exactly what alloc_smem gave.")
      .def(
          "write_smem",
          [](PyDevice& self, const py::object& offset, const py::object& data, std::optional<uint32_t> board) {
            const uint64_t at = smem_offset(offset, board);
            const ByteView v = byte_view(data, false, "write_smem: data");
            with_device(self, [&](ipudrv::Device& d) { d.write_smem(board.value_or(0), at, v.in()); });
          },
          py::arg("offset"), py::arg("data"), py::arg("board") = py::none(),
          "Writes `data` to streaming memory at `offset` (an int, or an SmemBuffer: its offset and board) of "
          "`board` (default 0).")
      .def(
          "read_smem",
          [](PyDevice& self, const py::object& offset, const py::object& count, const py::object& dtype,
             const py::object& out, std::optional<uint32_t> board) {
            const uint64_t at = smem_offset(offset, board);
            size_t bytes = 0;
            if (out.is_none() && count.is_none()) {
              if (!py::isinstance<ipudrv::SmemBuffer>(offset))
                throw ipudrv::UsageError("read_smem: give count or out (or an SmemBuffer: all of it)");
              bytes = offset.cast<ipudrv::SmemBuffer>().bytes;
            }
            auto target = read_target(out, count, dtype, bytes, "read_smem");
            const ByteView v = target.second;
            with_device(self, [&](ipudrv::Device& d) { d.read_smem(board.value_or(0), at, v.out()); });
            return target.first;
          },
          py::arg("offset"), py::arg("count") = py::none(), py::arg("dtype") = "uint8", py::kw_only(),
          py::arg("out") = py::none(), py::arg("board") = py::none(),
          (std::string("Reads streaming memory at `offset` (an int, or an SmemBuffer: without count or out, all of "
                       "it) of `board` (default 0).") +
           kReadDoc)
              .c_str());
}

}  // namespace ipusim_py
