// ipudrv::Elf: a tile program read on the host (segments, entry, symbols, source lines).
#include "ipudrv/elf.h"

#include "bindings.h"

namespace ipusim_py {

void bind_elf(py::module_& m) {
  py::class_<ipudrv::ElfSegment>(m, "ElfSegment", "A loadable segment: file bytes at vaddr, zeros up to mem_bytes.")
      .def_readonly("vaddr", &ipudrv::ElfSegment::vaddr, "tile address")
      .def_readonly("mem_bytes", &ipudrv::ElfSegment::mem_bytes, "bytes in memory (file bytes, then zeros)")
      .def_property_readonly(
          "data",
          [](const ipudrv::ElfSegment& s) {
            return py::bytes(reinterpret_cast<const char*>(s.bytes.data()), s.bytes.size());
          },
          "the file bytes (a copy)")
      .def("__repr__", [](const ipudrv::ElfSegment& s) {
        return "<ElfSegment vaddr=" + std::to_string(s.vaddr) + " file=" + std::to_string(s.bytes.size()) +
               " mem=" + std::to_string(s.mem_bytes) + ">";
      });

  py::class_<ipudrv::Elf>(m, "Elf",
                          "A tile program as the driver loads it: an rv32 ELF's loadable segments, entry, "
                          "executable range and symbols. Elf.from_file(path) or Elf.from_bytes(data, name); "
                          "ProgramError names the file and what is wrong with it.")
      .def_static(
          "from_file", [](const py::object& path) { 
            const std::string p = py::str(py::module_::import("os").attr("fspath")(path));
            py::gil_scoped_release release;
            return ipudrv::Elf::from_file(p);
          },
          py::arg("path"), "Reads an ELF file (str or os.PathLike).")
      .def_static(
          "from_bytes",
          [](const py::object& data, const std::string& name) {
            const ByteView v = byte_view(data, false, "Elf.from_bytes: data");
            std::vector<uint8_t> bytes(reinterpret_cast<const uint8_t*>(v.data),
                                       reinterpret_cast<const uint8_t*>(v.data) + v.bytes);
            py::gil_scoped_release release;
            return ipudrv::Elf::from_bytes(bytes, name);
          },
          py::arg("data"), py::arg("name") = "<bytes>", "An ELF image in memory (any bytes-like object); name is what errors call it.")
      .def_property_readonly("name", &ipudrv::Elf::name, "the file name (or from_bytes' name)")
      .def_property_readonly("entry", &ipudrv::Elf::entry, "the supervisor's first pc")
      .def_property_readonly("code_base", &ipudrv::Elf::code_base, "start of the executable range")
      .def_property_readonly("code_size", &ipudrv::Elf::code_size, "bytes of the executable range")
      .def_property_readonly("image_end", &ipudrv::Elf::image_end, "the highest address a segment occupies")
      .def_property_readonly("segments", &ipudrv::Elf::segments, "the loadable segments (list of ElfSegment)")
      .def("symbol", &ipudrv::Elf::symbol, py::arg("name"), "The symbol's address, or None.")
      .def("symbol_size", &ipudrv::Elf::symbol_size, py::arg("name"),
           "The symbol's st_size in bytes (0 for a label), or None when there is no such symbol.")
      .def("__contains__", [](const ipudrv::Elf& e, const std::string& name) { return e.symbol(name).has_value(); })
      .def(
          "locate",
          [](const ipudrv::Elf& e, uint32_t pc) {
            const auto l = e.locate(pc);
            return py::make_tuple(l.function.empty() ? py::object(py::none()) : py::object(py::str(l.function)),
                                  l.source.empty() ? py::object(py::none()) : py::object(py::str(l.source)));
          },
          py::arg("pc"), "(function, 'file.c:LINE') of pc from the DWARF (else the symbol table); None what is not known.")
      .def("__repr__", [](const ipudrv::Elf& e) { return "<Elf " + e.name() + " entry=" + std::to_string(e.entry()) + ">"; });
}

}  // namespace ipusim_py
