// Tensors over tiles (ipudrv/tensor.h; docs/host_driver.md "Tensors") with numpy arrays:
// the layout types as Python classes, numpy dtypes accepted wherever a DType is, and
// Device.write_tensor / read_tensor / write_per_tile / dma_stats. A tensor moves in one
// driver call (a few DMA descriptors) with the GIL released.
#include <pybind11/operators.h>

#include <limits>
#include <string>

#include "bindings.h"

namespace ipusim_py {
namespace {

using ipudrv::DType;

// numpy's dtype for a DType: numpy has no bfloat16, so BF16 elements are uint16 bits.
py::dtype numpy_dtype(DType t) {
  switch (t) {
    case DType::kU8: return py::dtype("uint8");
    case DType::kI8: return py::dtype("int8");
    case DType::kU16: return py::dtype("uint16");
    case DType::kI16: return py::dtype("int16");
    case DType::kU32: return py::dtype("uint32");
    case DType::kI32: return py::dtype("int32");
    case DType::kU64: return py::dtype("uint64");
    case DType::kI64: return py::dtype("int64");
    case DType::kF16: return py::dtype("float16");
    case DType::kBF16: return py::dtype("uint16");
    case DType::kF32: return py::dtype("float32");
    case DType::kF64: return py::dtype("float64");
  }
  throw ipudrv::UsageError("dtype " + std::to_string(int(t)) + " is not a tensor dtype");
}

// The DType of a numpy dtype (bool is one byte: U8); nullopt when there is none.
std::optional<DType> dtype_of(const py::dtype& dt) {
  const char kind = dt.kind();
  const auto size = dt.itemsize();
  if (kind == 'b' && size == 1) return DType::kU8;
  if (kind == 'u' || kind == 'i') {
    const bool s = kind == 'i';
    switch (size) {
      case 1: return s ? DType::kI8 : DType::kU8;
      case 2: return s ? DType::kI16 : DType::kU16;
      case 4: return s ? DType::kI32 : DType::kU32;
      case 8: return s ? DType::kI64 : DType::kU64;
      default: return std::nullopt;
    }
  }
  if (kind == 'f') {
    switch (size) {
      case 2: return DType::kF16;
      case 4: return DType::kF32;
      case 8: return DType::kF64;
      default: return std::nullopt;
    }
  }
  return std::nullopt;
}

// A DType, or anything numpy.dtype() takes ("float32", numpy.int16, ...).
DType to_dtype(const py::object& obj) {
  if (py::isinstance<DType>(obj)) return obj.cast<DType>();
  const py::dtype dt = py::dtype::from_args(obj);
  if (const auto t = dtype_of(dt)) return *t;
  throw ipudrv::UsageError("dtype " + dt.attr("name").cast<std::string>() +
                           " has no tensor dtype (u8 .. u64, i8 .. i64, f16, bf16, f32, f64)");
}

// Field `field` of item `where` ("tiles[2]") as a whole number of T, or a UsageError that
// names both and the value: pybind11's own cast says only "Unable to cast Python instance
// to C++ type" for a negative or oversized one.
template <class T>
T whole_number(const py::handle& item, size_t field, const std::string& where, const char* name) {
  const py::handle v = item[py::int_(field)];
  const std::string what = where + " " + name + " " + py::repr(v).cast<std::string>();
  if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr())) throw ipudrv::UsageError(what + ": not a whole number");
  int overflow = 0;
  const long long n = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow < 0 || (overflow == 0 && n < 0)) throw ipudrv::UsageError(what + ": negative");
  unsigned long long u = overflow == 0 ? static_cast<unsigned long long>(n) : PyLong_AsUnsignedLongLong(v.ptr());
  if (overflow > 0 && PyErr_Occurred()) {
    PyErr_Clear();
    u = ~0ull;
    if (std::numeric_limits<T>::max() == ~0ull) throw ipudrv::UsageError(what + ": more than 2^64 - 1");
  }
  if (u > std::numeric_limits<T>::max())
    throw ipudrv::UsageError(what + ": more than " + std::to_string(std::numeric_limits<T>::max()));
  return static_cast<T>(u);
}

// An item of `fields` whole numbers: a tuple or list of exactly that many.
void expect_fields(const py::handle& item, size_t fields, const std::string& where, const char* form) {
  if (!(PyTuple_Check(item.ptr()) || PyList_Check(item.ptr())) || py::len(item) != fields)
    throw ipudrv::UsageError(where + ": expected " + form + ", got " + py::repr(item).cast<std::string>());
}

// Tiles: TileId objects or (ipu, tile) pairs, in the mapping's order.
ipudrv::TileList to_tiles(const py::iterable& tiles) {
  ipudrv::TileList out;
  size_t i = 0;
  for (const py::handle& t : tiles) {
    const std::string where = "tiles[" + std::to_string(i++) + "]";
    if (py::isinstance<ipudrv::TileId>(t)) {
      out.push_back(t.cast<ipudrv::TileId>());
      continue;
    }
    expect_fields(t, 2, where, "a TileId or an (ipu, tile) pair");
    out.push_back({whole_number<uint32_t>(t, 0, where, "ipu"), whole_number<uint32_t>(t, 1, where, "tile")});
  }
  return out;
}

std::vector<ipudrv::TilePiece> to_pieces(const py::iterable& pieces) {
  std::vector<ipudrv::TilePiece> out;
  size_t i = 0;
  for (const py::handle& p : pieces) {
    const std::string where = "pieces[" + std::to_string(i++) + "]";
    if (py::isinstance<ipudrv::TilePiece>(p)) {
      out.push_back(p.cast<ipudrv::TilePiece>());
      continue;
    }
    expect_fields(p, 4, where, "a TilePiece or an (ipu, tile, offset, count) tuple");
    out.push_back({whole_number<uint32_t>(p, 0, where, "ipu"), whole_number<uint32_t>(p, 1, where, "tile"),
                   whole_number<uint64_t>(p, 2, where, "offset"), whole_number<uint64_t>(p, 3, where, "count")});
  }
  return out;
}

const char* kind_name(ipudrv::Mapping::Kind k) {
  switch (k) {
    case ipudrv::Mapping::Kind::kBlockedRows: return "blocked_rows";
    case ipudrv::Mapping::Kind::kBlocked2D: return "blocked_2d";
    case ipudrv::Mapping::Kind::kReplicated: return "replicated";
    case ipudrv::Mapping::Kind::kPerTile: return "per_tile";
  }
  return "?";
}

// A numpy array's elements must be the layout's dtype (BF16: any 2-byte integer bits);
// other buffers are taken as raw bytes (the driver checks their size).
void check_array_dtype(const py::object& data, DType want, const char* what) {
  if (!py::isinstance<py::array>(data)) return;
  const py::dtype dt = data.cast<py::array>().dtype();
  const auto have = dtype_of(dt);
  const bool bf16_bits = want == DType::kBF16 && (dt.kind() == 'u' || dt.kind() == 'i') && dt.itemsize() == 2;
  if (bf16_bits || (have && *have == want)) return;
  throw ipudrv::UsageError(std::string(what) + ": the array holds " + dt.attr("name").cast<std::string>() +
                           ", the tensor is " + ipudrv::dtype_name(want));
}

py::tuple shape_tuple(const std::vector<uint64_t>& shape) {
  py::tuple t(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) t[i] = py::int_(shape[i]);
  return t;
}

std::string tiles_repr(const ipudrv::TileList& tiles) {
  if (tiles.empty()) return "0 tiles";
  const auto& f = tiles.front();
  return std::to_string(tiles.size()) + " tiles from ipu " + std::to_string(f.ipu) + " tile " + std::to_string(f.tile);
}

}  // namespace

void bind_tensors(py::module_& m, py::class_<PyDevice>& cls) {
  py::enum_<DType>(m, "DType", "A tensor's element type (numpy dtypes are accepted wherever a DType is).")
      .value("U8", DType::kU8)
      .value("I8", DType::kI8)
      .value("U16", DType::kU16)
      .value("I16", DType::kI16)
      .value("U32", DType::kU32)
      .value("I32", DType::kI32)
      .value("U64", DType::kU64)
      .value("I64", DType::kI64)
      .value("F16", DType::kF16)
      .value("BF16", DType::kBF16)
      .value("F32", DType::kF32)
      .value("F64", DType::kF64);
  m.def("dtype_size", [](const py::object& t) { return ipudrv::dtype_size(to_dtype(t)); }, py::arg("dtype"),
        "Bytes per element of a DType (or a numpy dtype).");
  m.def("tensor_dtype", &to_dtype, py::arg("dtype"),
        "The DType of a numpy dtype (bool: U8); UsageError for one with none (complex, ...).");
  m.def("numpy_dtype", [](const py::object& t) { return numpy_dtype(to_dtype(t)); }, py::arg("dtype"),
        "The numpy dtype of a DType's elements (BF16: uint16, its bits).");

  py::class_<ipudrv::TileId>(m, "TileId", "One tile of the device: a device IPU and a tile of it.")
      .def(py::init([](uint32_t ipu, uint32_t tile) { return ipudrv::TileId{ipu, tile}; }), py::arg("ipu"),
           py::arg("tile"))
      .def_readonly("ipu", &ipudrv::TileId::ipu, "device IPU")
      .def_readonly("tile", &ipudrv::TileId::tile, "tile of that IPU")
      .def(py::self == py::self)
      .def("__hash__", [](const ipudrv::TileId& t) { return py::hash(py::make_tuple(t.ipu, t.tile)); })
      .def("__repr__", [](const ipudrv::TileId& t) {
        return "TileId(ipu=" + std::to_string(t.ipu) + ", tile=" + std::to_string(t.tile) + ")";
      });
  m.def("tile_range", &ipudrv::tile_range, py::arg("ipu"), py::arg("first"), py::arg("count"),
        "Tiles first .. first + count - 1 of one device IPU, as a list of TileId.");
  m.def("all_tiles", &ipudrv::all_tiles, py::arg("info"), "Every tile of a device (DeviceInfo), IPU by IPU.");

  py::class_<ipudrv::TilePiece>(m, "TilePiece",
                                "One piece of a per-tile mapping: elements [offset, offset + count) of the flattened "
                                "tensor, contiguous on that tile.")
      .def(py::init([](uint32_t ipu, uint32_t tile, uint64_t offset, uint64_t count) {
             return ipudrv::TilePiece{ipu, tile, offset, count};
           }),
           py::arg("ipu"), py::arg("tile"), py::arg("offset"), py::arg("count"))
      .def_readonly("ipu", &ipudrv::TilePiece::ipu, "device IPU")
      .def_readonly("tile", &ipudrv::TilePiece::tile, "tile of that IPU")
      .def_readonly("offset", &ipudrv::TilePiece::offset, "first element of the flattened tensor")
      .def_readonly("count", &ipudrv::TilePiece::count, "elements");

  using ipudrv::Mapping;
  py::class_<Mapping>(m, "Mapping", "How a tensor's elements are spread over tiles; each tile's block is contiguous.")
      .def_static("blocked_rows", [](const py::iterable& t) { return Mapping::blocked_rows(to_tiles(t)); },
                  py::arg("tiles"),
                  "Dimension 0 split into near-equal contiguous blocks over `tiles` (TileId or (ipu, tile)): R rows "
                  "over n tiles give each R // n rows, the first R % n one more.")
      .def_static(
          "blocked_2d",
          [](const py::iterable& t, uint32_t rows, uint32_t cols) { return Mapping::blocked_2d(to_tiles(t), rows, cols); },
          py::arg("tiles"), py::arg("grid_rows"), py::arg("grid_cols"),
          "A 2-D tensor cut into grid_rows x grid_cols blocks; tile r * grid_cols + c holds block (r, c), row-major.")
      .def_static("replicated", [](const py::iterable& t) { return Mapping::replicated(to_tiles(t)); }, py::arg("tiles"),
                  "The whole tensor on every tile (a broadcast); reading takes the first tile's copy.")
      .def_static("per_tile", [](const py::iterable& p) { return Mapping::per_tile(to_pieces(p)); }, py::arg("pieces"),
                  "Explicit pieces (TilePiece or (ipu, tile, offset, count)) of the flattened tensor, at most one per "
                  "tile; elements no piece names are not moved.")
      .def_property_readonly("kind", [](const Mapping& mp) { return kind_name(mp.kind); },
                             "'blocked_rows', 'blocked_2d', 'replicated' or 'per_tile'")
      .def_readonly("tiles", &Mapping::tiles, "the tiles in mapping order (not per_tile)")
      .def_readonly("grid_rows", &Mapping::grid_rows, "blocked_2d: rows of the tile grid")
      .def_readonly("grid_cols", &Mapping::grid_cols, "blocked_2d: columns of the tile grid")
      .def_readonly("pieces", &Mapping::pieces, "per_tile: the pieces")
      .def("__repr__", [](const Mapping& mp) {
        if (mp.kind == Mapping::Kind::kPerTile) return "Mapping.per_tile(" + std::to_string(mp.pieces.size()) + " pieces)";
        return std::string("Mapping.") + kind_name(mp.kind) + "(" + tiles_repr(mp.tiles) + ")";
      });

  using ipudrv::Location;
  py::class_<Location>(m, "Location", "Where a tile's block lives: a symbol of the ELF loaded on it, or a tile address.")
      .def_static("symbol", &Location::symbol, py::arg("name"),
                  "A symbol, resolved per tile from the ELF loaded there; a block larger than its size is a "
                  "UsageError.")
      .def_static("at", &Location::at, py::arg("address"), "One tile address (from SRAM_BASE) on every tile.")
      .def_readonly("symbol_name", &Location::symbol_name, "the symbol ('' for an address)")
      .def_readonly("address", &Location::address, "the address (a symbol: 0)")
      .def("__repr__", [](const Location& l) {
        return l.symbol_name.empty() ? "Location.at(" + std::to_string(l.address) + ")"
                                     : "Location.symbol('" + l.symbol_name + "')";
      });

  using ipudrv::TensorLayout;
  py::class_<TensorLayout>(m, "TensorLayout",
                           "A tensor of a shape and dtype over tiles: its mapping and where its blocks live.")
      .def(py::init([](const std::vector<uint64_t>& shape, const py::object& dtype, Mapping mapping, Location location) {
             return TensorLayout{shape, to_dtype(dtype), std::move(mapping), std::move(location)};
           }),
           py::arg("shape"), py::arg("dtype"), py::arg("mapping"), py::arg("location"),
           "shape: sizes, outermost first; dtype: a DType or a numpy dtype.")
      .def_property_readonly("shape", [](const TensorLayout& l) { return shape_tuple(l.shape); }, "the sizes")
      .def_readonly("dtype", &TensorLayout::dtype, "the element type")
      .def_readonly("mapping", &TensorLayout::mapping, "how the elements are spread over tiles")
      .def_readonly("location", &TensorLayout::location, "where each tile's block lives")
      .def_property_readonly("elements", &TensorLayout::elements, "product of the sizes")
      .def_property_readonly("bytes", &TensorLayout::bytes, "elements * dtype_size(dtype)")
      .def("__repr__", [](const TensorLayout& l) {
        return "<TensorLayout " + py::str(shape_tuple(l.shape)).cast<std::string>() + " " +
               ipudrv::dtype_name(l.dtype) + " " + py::repr(py::cast(l.mapping)).cast<std::string>() + " " +
               py::repr(py::cast(l.location)).cast<std::string>() + ">";
      });

  cls.def(
         "write_tensor",
         [](PyDevice& self, const TensorLayout& layout, const py::object& data) {
           check_array_dtype(data, layout.dtype, "write_tensor");
           const ByteView v = byte_view(data, false, "write_tensor: data");
           with_device(self, [&](ipudrv::Device& d) { d.write_tensor(layout, v.in()); });
         },
         py::arg("layout"), py::arg("data"),
         "Writes a whole tensor (a C-contiguous array of the layout's dtype and element count, row-major) to its "
         "tiles in one call: a few DMA descriptors, broadcast when replicated.")
      .def(
          "read_tensor",
          [](PyDevice& self, const TensorLayout& layout, const py::object& out) {
            py::object target = out;
            if (target.is_none()) {
              // Zeros: elements no per-tile piece names are not read, and must not be stale heap.
              target = py::module_::import("numpy").attr("zeros")(shape_tuple(layout.shape), numpy_dtype(layout.dtype));
            } else {
              check_array_dtype(target, layout.dtype, "read_tensor");
            }
            const ByteView v = byte_view(target, true, "read_tensor: out");
            with_device(self, [&](ipudrv::Device& d) { d.read_tensor(layout, v.out()); });
            return target;
          },
          py::arg("layout"), py::kw_only(), py::arg("out") = py::none(),
          "Reads a whole tensor from its tiles in one call (gathering DMA): `out` filled in place, or a new numpy "
          "array of the layout's shape and dtype (BF16: uint16 bits), zeros where no per-tile piece lies.")
      .def(
          "write_per_tile",
          [](PyDevice& self, const py::iterable& tiles, const std::string& symbol, const py::object& data) {
            const ipudrv::TileList list = to_tiles(tiles);
            const ByteView v = byte_view(data, false, "write_per_tile: data");
            if (list.empty()) throw ipudrv::UsageError("write_per_tile: no tiles");
            if (v.bytes % list.size() != 0)
              throw ipudrv::UsageError("write_per_tile: " + std::to_string(v.bytes) + " bytes are not " +
                                       std::to_string(list.size()) + " equal per-tile shares");
            const size_t share = v.bytes / list.size();
            // A share must hold whole elements (records): bytes would split a record across tiles.
            const size_t item = static_cast<size_t>(v.info->itemsize);
            if (item > 1 && share % item != 0)
              throw ipudrv::UsageError("write_per_tile: data: " + std::to_string(v.bytes / item) + " records of " +
                                       std::to_string(item) + " bytes do not split into " + std::to_string(list.size()) +
                                       " per-tile shares of whole records (each would get " + std::to_string(share) +
                                       " bytes)");
            with_device(self, [&](ipudrv::Device& d) { d.write_per_tile(list, symbol, share, v.in()); });
          },
          py::arg("tiles"), py::arg("symbol"), py::arg("data"),
          "Per-tile launch arguments: tile i of `tiles` gets the i-th of len(tiles) equal shares of `data` (e.g. an "
          "array of shape (len(tiles), ...) or a structured array, one row per tile) at `symbol`, in one call. Each "
          "share holds whole elements (records): a split inside one is a UsageError.")
      .def(
          "dma_stats", [](PyDevice& self) { return with_device(self, [](ipudrv::Device& d) { return d.dma_stats(); }); },
          "What the device's DMA channels posted since it was opened (descriptors, batches, bytes per direction).");
}

}  // namespace ipusim_py
