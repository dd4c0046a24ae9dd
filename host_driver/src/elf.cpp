// ipudrv::Elf over the project's ELF reader (tlm/iss/program.h): the host side reads the
// same ELF the model would, so the segments, entry and symbols cannot disagree.
#include "ipudrv/elf.h"

#include "ipudrv/errors.h"
#include "iss/program.h"

namespace ipudrv {

struct Elf::Data {
  std::shared_ptr<const ipusim::iss::Program> program;
  std::vector<ElfSegment> segments;
};

namespace {
std::shared_ptr<const Elf::Data> wrap(std::shared_ptr<const ipusim::iss::Program> p) {
  auto d = std::make_shared<Elf::Data>();
  for (const auto& s : p->segments()) d->segments.push_back({s.vaddr, s.mem_size, s.bytes});
  d->program = std::move(p);
  return d;
}
}  // namespace

Elf Elf::from_file(const std::string& path) {
  try {
    return Elf(wrap(ipusim::iss::Program::load(path)));
  } catch (const ipusim::iss::ProgramError& e) {
    throw ProgramError(e.what());
  }
}

Elf Elf::from_bytes(const std::vector<uint8_t>& bytes, const std::string& name) {
  try {
    return Elf(wrap(ipusim::iss::Program::from_bytes(bytes, name)));
  } catch (const ipusim::iss::ProgramError& e) {
    throw ProgramError(e.what());
  }
}

const std::string& Elf::name() const { return d_->program->name(); }
uint32_t Elf::entry() const { return d_->program->entry(); }
uint32_t Elf::code_base() const { return d_->program->code_begin(); }
uint32_t Elf::code_size() const { return d_->program->code_end() - d_->program->code_begin(); }
const std::vector<ElfSegment>& Elf::segments() const { return d_->segments; }
std::optional<uint32_t> Elf::symbol(const std::string& name) const { return d_->program->symbol(name); }
std::optional<uint32_t> Elf::symbol_size(const std::string& name) const { return d_->program->symbol_size(name); }
uint32_t Elf::image_end() const { return d_->program->image_end(); }
Elf::Location Elf::locate(uint32_t pc) const {
  const ipusim::iss::SourceLocation at = d_->program->locate(pc);
  return {at.function, at.source()};
}

}  // namespace ipudrv
